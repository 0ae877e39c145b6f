"""The recorder against the simulated cluster without its controller: the tests play
Kueue, writing Workload status and Kueue's Events through the API themselves."""

from __future__ import annotations

from apps.reports.models import WorkloadTransition
from apps.reports.recorder import EVENTS, run_recorder
from apps.reports.timeline import RANK
from core.kube import ResourceRef
from testkit import workloads as w

NAMESPACES = ResourceRef("", "v1", "namespaces", "Namespace", False)


def create(sim, name, **kw) -> str:
    return sim.create(w.workload(name, **kw))["metadata"]["uid"]


def set_status(sim, name, patch):
    sim.patch("Workload", name, patch, namespace="team-vision", subresource="status")


def emit(sim, workload: dict, reason: str, minutes: float, message: str = "") -> dict:
    """One Event on ``workload`` as Kueue's event recorder writes it."""
    meta = workload["metadata"]
    with sim.client() as kube:
        return kube.create(EVENTS, w.kueue_event(meta, reason, minutes, message))


def transitions(uid) -> list[tuple[str, str]]:
    rows = WorkloadTransition.objects.filter(workload__uid=uid)
    ordered = sorted(rows, key=lambda t: (t.at, RANK[t.type]))
    return [(t.type, t.reason) for t in ordered]


def record(sim, seconds=1.5) -> dict:
    with sim.client() as kube:
        return run_recorder(seconds=seconds, kube=kube)
