from django.urls import path, re_path

from apps.live import views

app_name = "live"

# Kubernetes names: a namespace is a DNS label (≤63), a Workload name a DNS subdomain (≤253).
NAMESPACE = r"(?P<namespace>[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?)"
NAME = r"(?P<name>[a-z0-9](?:[-a-z0-9.]{0,251}[a-z0-9])?)"

urlpatterns = [
    path("live/", views.live_queues, name="queues"),
    re_path(rf"^live/workloads/{NAMESPACE}/{NAME}/$", views.workload, name="workload"),
]
