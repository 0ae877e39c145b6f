from django.urls import path, re_path

from apps.live import api
from apps.live.urls import NAME, NAMESPACE

urlpatterns = [
    path("live/queues/", api.live_queues, name="live-queues"),
    re_path(rf"^live/workloads/{NAMESPACE}/{NAME}/$", api.workload, name="live-workload"),
]
