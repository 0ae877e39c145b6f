"""A workload's timeline (``core.lifeline``) from the recorder's transitions (``apps.reports``).

The recorder keeps every admission, eviction and requeue however old, where the cluster
shows only the latest conditions and an hour of Events.
"""

from __future__ import annotations

from datetime import datetime

from apps.reports.models import WorkloadTransition
from core import lifeline
from informer.workload import Transition

STEPS = {
    Transition.CREATED: lifeline.QUEUED,
    Transition.ADMITTED: lifeline.ADMITTED,
    Transition.EVICTED: lifeline.EVICTED,
    Transition.PREEMPTED: lifeline.EVICTED,
    Transition.REQUEUED: lifeline.REQUEUED,
    Transition.FINISHED: lifeline.FINISHED,
    Transition.DELETED: lifeline.ENDED,
}


def recorded_figure(uid: str, now: datetime) -> dict:
    found = WorkloadTransition.objects.filter(workload__uid=uid, type__in=list(STEPS))
    steps = [lifeline.Step(STEPS[t], at) for t, at in found.values_list("type", "at")]
    return lifeline.figure(lifeline.lifeline(steps, now))
