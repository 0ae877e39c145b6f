from django.urls import path

from apps.whatif import views

app_name = "whatif"

urlpatterns = [
    path("whatif/", views.run_list, name="runs"),
    path("whatif/suggestions/", views.suggestion_list, name="suggestions"),
    path("whatif/suggestions/refresh/", views.suggestion_refresh, name="suggestion-refresh"),
    path(
        "whatif/suggestions/<int:pk>/dismiss/",
        views.suggestion_dismiss,
        name="suggestion-dismiss",
    ),
    path("whatif/<int:pk>/", views.run_detail, name="run"),
    path("whatif/<int:pk>/apply/", views.run_apply, name="apply"),
    path("queues/<int:pk>/whatif/", views.from_queue_edit, name="from-queue"),
    path(
        "change-requests/<int:pk>/whatif/",
        views.from_change_request,
        name="from-change-request",
    ),
]
