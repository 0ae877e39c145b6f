"""Pure: how far a notebook has got towards Ready, as JupyterHub's spawn page shows it.

Built only from what the portal already records (state and pending reason), so the
steps mean the same thing on any Kueue cluster.
"""

from __future__ import annotations

from dataclasses import dataclass

from apps.jobs.choices import NotebookState
from apps.jobs.status import ADMITTED_UNSCHEDULABLE

DONE, CURRENT, BLOCKED, TODO = "done", "current", "blocked", "todo"

STEPS = (
    ("queued", "Queued"),
    ("admitted", "Admitted by Kueue (quota reserved)"),
    ("scheduled", "Pod scheduled and starting"),
    ("ready", "Ready"),
)

# The index of the step a notebook in this state is working on.
_REACHED = {
    NotebookState.REQUESTED: 0,  # saved; its cluster objects are being created
    NotebookState.QUEUED: 1,  # waiting for Kueue to reserve quota
    NotebookState.STARTING: 2,  # admitted; the pod is being scheduled or started
    NotebookState.READY: len(STEPS),
    NotebookState.EXPIRING: len(STEPS),
}


@dataclass(frozen=True)
class Step:
    key: str
    label: str
    status: str  # DONE, CURRENT, BLOCKED or TODO
    detail: str = ""


def spawn_progress(state: str, pending_reason: str = "") -> list[Step]:
    """The four steps with their status; [] for a notebook that has ended."""
    if state not in _REACHED:
        return []
    reached = _REACHED[state]
    blocked = state == NotebookState.STARTING and pending_reason.startswith(ADMITTED_UNSCHEDULABLE)
    steps = []
    for i, (key, label) in enumerate(STEPS):
        if i < reached:
            steps.append(Step(key, label, DONE))
        elif i == reached:
            steps.append(Step(key, label, BLOCKED if blocked else CURRENT, pending_reason))
        else:
            steps.append(Step(key, label, TODO))
    return steps
