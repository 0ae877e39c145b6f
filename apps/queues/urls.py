from django.urls import path

from apps.queues import catalog_views as admin
from apps.queues import sync_views, views

app_name = "queues"

urlpatterns = [
    path("", views.overview, name="overview"),
    path("teams/<slug:slug>/", views.team_detail, name="team"),
    path("teams/<slug:slug>/audit/", views.audit_team, name="team-audit"),
    path("queues/<int:pk>/", views.queue_detail, name="queue"),
    path("queues/<int:pk>/edit/", views.queue_edit, name="queue-edit"),
    path("change-requests/", views.change_requests, name="change-requests"),
    path("change-requests/<int:pk>/", views.change_request_detail, name="change-request"),
    path(
        "change-requests/<int:pk>/decide/",
        views.change_request_decide,
        name="change-request-decide",
    ),
    path("audit/", views.audit_global, name="audit"),
    path("cluster/", sync_views.cluster_sync, name="cluster-sync"),
    path("cluster/import/", sync_views.cluster_import, name="cluster-import"),
    path("cluster/adopt/", sync_views.cluster_adopt, name="cluster-adopt"),
    # --- administration (platform admins) ---
    path("administration/", admin.index, name="admin"),
    path("administration/teams/", admin.team_new, name="admin-team-new"),
    path("administration/teams/<slug:slug>/", admin.team_edit, name="admin-team"),
    path(
        "administration/teams/<slug:slug>/envelope/",
        admin.envelope_edit,
        name="admin-envelope",
    ),
    path(
        "administration/teams/<slug:slug>/members/add/",
        admin.member_add,
        name="admin-member-add",
    ),
    path(
        "administration/teams/<slug:slug>/members/<int:user_id>/role/",
        admin.member_role,
        name="admin-member-role",
    ),
    path(
        "administration/teams/<slug:slug>/members/<int:user_id>/remove/",
        admin.member_remove,
        name="admin-member-remove",
    ),
    path("administration/flavors/", admin.flavor_page, name="admin-flavor-new"),
    path("administration/flavors/<str:name>/", admin.flavor_page, name="admin-flavor"),
    path("administration/cohorts/", admin.cohort_page, name="admin-cohort-new"),
    path("administration/cohorts/<str:name>/", admin.cohort_page, name="admin-cohort"),
    path("administration/tiers/", admin.tier_page, name="admin-tier-new"),
    path("administration/tiers/<str:name>/", admin.tier_page, name="admin-tier"),
]
