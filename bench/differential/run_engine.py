"""Run a scenario through ``kueuemodel`` in virtual time.

The scenario's arrival and duration annotations become the engine's
``simcluster/arrival`` and ``simcluster/duration``; a status writer that also
records every admission, eviction and finish gives the ``Outcome``.
"""

from __future__ import annotations

import copy
from typing import Any

from kueuemodel import (
    ARRIVAL_ANNOTATION,
    DURATION_ANNOTATION,
    Admission,
    Simulation,
    StatusWriter,
    Workload,
)
from realcluster.kueue_manifests import ADMISSION_FAIR_SHARING

from .outcome import Outcome, OutcomeBuilder, preemptor_uid
from .scenarios import Scenario, arrival_seconds, duration_seconds

FAIR_SHARING_CONFIG = {
    "apiVersion": "config.kueue.x-k8s.io/v1beta2",
    "kind": "Configuration",
    "fairSharing": {
        "preemptionStrategies": ["LessThanOrEqualToFinalShare", "LessThanInitialShare"]
    },
}


AFS_CONFIG = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration"}


def engine_objects(
    scenario: Scenario, durations: dict[str, float] | None = None
) -> list[dict[str, Any]]:
    """The scenario's objects as the engine reads them.

    ``durations`` (short job name -> seconds) overrides the scenario's durations,
    e.g. with the run times observed on a real cluster.
    """
    objects = copy.deepcopy(scenario.objects)
    for obj in objects:
        if obj["kind"] == "Job":
            name = scenario.short(obj["metadata"]["name"])
            seconds = (durations or {}).get(name, duration_seconds(obj))
            obj["metadata"]["annotations"].update(
                {
                    ARRIVAL_ANNOTATION: f"{arrival_seconds(obj)}s",
                    DURATION_ANNOTATION: f"{round(seconds * 1000)}ms",
                }
            )
    if scenario.fair_sharing:
        objects.insert(0, copy.deepcopy(FAIR_SHARING_CONFIG))
    if scenario.admission_fair_sharing:
        config = {**AFS_CONFIG, "admissionFairSharing": copy.deepcopy(ADMISSION_FAIR_SHARING)}
        objects.insert(0, config)
    return objects


def run_engine(
    scenario: Scenario,
    *,
    durations: dict[str, float] | None = None,
    pod_stop_s: float = 1.0,
) -> Outcome:
    """Simulate ``scenario`` to quiescence; ``pod_stop_s`` is how long an evicted
    job's pods take to go (its quota is released then, as Kueue does)."""
    objects = engine_objects(scenario, durations)
    workload_like = [o for o in objects if ARRIVAL_ANNOTATION in _annotations(o)]
    setup = [o for o in objects if ARRIVAL_ANNOTATION not in _annotations(o)]
    sim = Simulation(setup, start_ms=0, record_events=False, pod_stop_ms=round(pod_stop_s * 1000))
    jobs = [scenario.short(o["metadata"]["name"]) for o in workload_like]
    recorder = _RecordingWriter(scenario, OutcomeBuilder(jobs))
    sim.cluster.status_writer = recorder
    sim.add_arrivals([(arrival_seconds(o) * 1000, o) for o in workload_like])
    sim.run()
    for wl in sim.cluster.workloads.values():
        recorder.builder.uid_to_job[wl.uid] = recorder.job_of(wl)
    return recorder.builder.build()


def _annotations(obj: dict[str, Any]) -> dict[str, str]:
    return (obj.get("metadata") or {}).get("annotations") or {}


class _RecordingWriter(StatusWriter):
    """Writes status as usual and tells ``builder`` about each transition."""

    def __init__(self, scenario: Scenario, builder: OutcomeBuilder):
        self.scenario, self.builder = scenario, builder

    def job_of(self, wl: Workload) -> str:
        owner = wl.obj["metadata"]["ownerReferences"][0]["name"]
        return self.scenario.short(owner)

    def admitted(self, wl: Workload, admission: Admission, now_ms: int) -> None:
        super().admitted(wl, admission, now_ms)
        flavors = {self.scenario.short(f) for ps in admission.pod_sets for f in ps.flavors.values()}
        self.builder.admit(self.job_of(wl), now_ms / 1000, tuple(sorted(flavors)))

    def evicted(
        self,
        wl: Workload,
        reason: str,
        message: str,
        now_ms: int,
        preempted_reason: str | None,
    ) -> None:
        super().evicted(wl, reason, message, now_ms, preempted_reason)
        job = self.job_of(wl)
        self.builder.evict(job, now_ms / 1000, preempted_reason or reason, preemptor_uid(message))

    def finished(self, wl: Workload, now_ms: int) -> None:
        super().finished(wl, now_ms)
        self.builder.finish(self.job_of(wl), now_ms / 1000)
