"""Where the kinds the informer reads are served (Workloads follow ``KUEUE_API_VERSION``)."""

from __future__ import annotations

from django.conf import settings

from core.kube import ResourceRef

KUEUE_GROUP = "kueue.x-k8s.io"
POD = ResourceRef("", "v1", "pods", "Pod", True)
JOB = ResourceRef("batch", "v1", "jobs", "Job", True)
STATEFULSET = ResourceRef("apps", "v1", "statefulsets", "StatefulSet", True)
EVENT = ResourceRef("", "v1", "events", "Event", True)
NODE = ResourceRef("", "v1", "nodes", "Node", False)
# The label on the portal's batch Jobs and their pods (the job's name): job status and
# the history recorder both follow those pods, through one watch.
JOB_LABEL = "quartermaster.io/job"


def workload_ref() -> ResourceRef:
    # Read at call time, so override_settings and a version switch apply.
    return ResourceRef(KUEUE_GROUP, settings.KUEUE_API_VERSION, "workloads", "Workload", True)
