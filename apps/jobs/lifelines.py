"""A job's and a notebook's timelines (``core.lifeline``) from what the portal recorded.

A job has its admission history (``JobEvent``); a notebook records when it was requested,
when it was ready and when it ended, so its picture has no evictions (its workload page
in the live view draws the recorder's whole history).
"""

from __future__ import annotations

from datetime import datetime

from apps.jobs.choices import JobEventKind
from core import lifeline

JOB_STEPS = {
    JobEventKind.SUBMITTED: lifeline.QUEUED,
    JobEventKind.ADMITTED: lifeline.ADMITTED,
    JobEventKind.PREEMPTED: lifeline.EVICTED,
    JobEventKind.EVICTED: lifeline.EVICTED,
    JobEventKind.REQUEUED: lifeline.REQUEUED,
    JobEventKind.FINISHED: lifeline.FINISHED,
    JobEventKind.CANCELLED: lifeline.ENDED,
}


def job_figure(events, now: datetime) -> dict:
    """``events``: the job's ``JobEvent``s (kind, at)."""
    steps = [lifeline.Step(JOB_STEPS[e.kind], e.at) for e in events if e.kind in JOB_STEPS]
    return lifeline.figure(lifeline.lifeline(steps, now))


def notebook_figure(notebook, now: datetime) -> dict:
    times = (
        (lifeline.QUEUED, notebook.created_at),
        (lifeline.ADMITTED, notebook.ready_at),
        (lifeline.ENDED, notebook.ended_at),
    )
    steps = [lifeline.Step(kind, at) for kind, at in times if at is not None]
    return lifeline.figure(lifeline.lifeline(steps, now))
