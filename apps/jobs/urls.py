from django.urls import path

from apps.jobs import inference_views, launcher_views, views

app_name = "jobs"

urlpatterns = [
    path("notebooks/", views.notebook_list, name="notebooks"),
    path("notebooks/new/", views.notebook_request, name="notebook-new"),
    path("notebooks/<int:pk>/", views.notebook_detail, name="notebook"),
    path("notebooks/<int:pk>/renew/", views.notebook_renew, name="notebook-renew"),
    path("notebooks/<int:pk>/stop/", views.notebook_stop, name="notebook-stop"),
    path("notebooks/open/<str:namespace>/<str:name>/", views.notebook_open, name="notebook-open"),
    path("jobs/", views.job_list, name="jobs"),
    path("jobs/new/", views.job_submit, name="job-new"),
    path("jobs/<int:pk>/", views.job_detail, name="job"),
    path("jobs/<int:pk>/cancel/", views.job_cancel, name="job-cancel"),
    path("sweeps/", views.sweep_list, name="sweeps"),
    path("sweeps/limits/<slug:slug>/", views.sweep_limit_edit, name="sweep-limit"),
    path("sweeps/new/", views.sweep_submit, name="sweep-new"),
    path("sweeps/<int:pk>/", views.sweep_detail, name="sweep"),
    path("sweeps/<int:pk>/cancel/", views.sweep_cancel, name="sweep-cancel"),
    path("sweeps/<int:pk>/retry/", views.sweep_retry, name="sweep-retry"),
    path("inference/", inference_views.inference_list, name="inference-services"),
    path("inference/new/", inference_views.inference_request, name="inference-new"),
    path("inference/<int:pk>/", inference_views.inference_detail, name="inference"),
    path("inference/<int:pk>/stop/", inference_views.inference_stop, name="inference-stop"),
    path("launchers/", launcher_views.launchers, name="launchers"),
    path("launchers/<int:pk>/teams/", launcher_views.launcher_teams, name="launcher-teams"),
    path("launchers/<int:pk>/revoke/", launcher_views.launcher_revoke, name="launcher-revoke"),
]
