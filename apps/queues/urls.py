from django.urls import path

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
]
