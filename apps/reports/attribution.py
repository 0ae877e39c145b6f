"""Pure: attribute per-pod Prometheus samples to workload runs, and sum them up.

A sample of pod P in namespace N at time t belongs to the workload whose owner (Job or
StatefulSet) owned P and which was admitted at t. Ownership comes from kube-state-metrics'
``kube_pod_owner`` when Prometheus has it. Without it, the pod's name is the only clue
(``<owner>-<suffix>``, Jobs trimming the owner to 57 characters, or the owner itself),
and of several owners whose names fit, only the longest counts: ``train-2-x7k2p``
belongs to ``train-2``, never to ``train``. Samples nobody owns are dropped.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from apps.reports.compute.records import UsageFact

JOB_POD_PREFIX = 57


@dataclass(frozen=True)
class Candidate:
    uid: str
    namespace: str
    owner: str
    runs: tuple[tuple[float, float, str], ...]  # (start, end, flavor)


def owns(owner: str, pod: str) -> bool:
    return pod == owner or pod.startswith(f"{owner[:JOB_POD_PREFIX]}-")


class Attributor:
    def __init__(
        self,
        candidates: list[Candidate],
        pod_owners: dict[tuple[str, str], str] | None = None,
    ):
        """``pod_owners``: (namespace, pod) → owner name, as the cluster recorded it."""
        self.by_namespace: dict[str, list[Candidate]] = defaultdict(list)
        for c in candidates:
            self.by_namespace[c.namespace].append(c)
        self.pod_owners = pod_owners or {}
        self._pods: dict[tuple[str, str], list[Candidate]] = {}

    def owners_of(self, namespace: str, pod: str) -> list[Candidate]:
        key = (namespace, pod)
        if key not in self._pods:
            self._pods[key] = self._owners(namespace, pod)
        return self._pods[key]

    def _owners(self, namespace: str, pod: str) -> list[Candidate]:
        here = self.by_namespace.get(namespace, ())
        owner = self.pod_owners.get((namespace, pod))
        if owner is not None:
            return [c for c in here if c.owner == owner]
        fitting = [c for c in here if owns(c.owner, pod)]
        longest = max((len(c.owner) for c in fitting), default=0)
        return [c for c in fitting if len(c.owner) == longest]

    def locate(self, namespace: str, pod: str, t: float) -> tuple[str, str] | None:
        """(uid, flavor) of the run that held pod's GPUs at t."""
        for c in self.owners_of(namespace, pod):
            for start, end, flavor in c.runs:
                if start <= t < end:
                    return c.uid, flavor
        return None


def _mean_by_uid(attributor: Attributor, series) -> dict[str, float]:
    sums: dict[str, list[float]] = defaultdict(lambda: [0.0, 0])
    for s in series:
        for t, v in s.points:
            hit = attributor.locate(s.namespace, s.pod, t) if s.pod else None
            if hit and 0 <= v < 1e15:  # DCGM sentinels for "blank" are absurdly large
                sums[hit[0]][0] += v
                sums[hit[0]][1] += 1
    return {uid: total / n for uid, (total, n) in sums.items()}


def usage_by_workload(attributor: Attributor, results: dict, step: float) -> dict[str, UsageFact]:
    """UsageFact per workload from the ``prometheus.usage_queries`` results."""
    util = _mean_by_uid(attributor, results.get("util", []))
    for uid, value in _mean_by_uid(attributor, results.get("mig_util", [])).items():
        util.setdefault(uid, value)  # MIG slices have no DEV_GPU_UTIL; use GR_ENGINE_ACTIVE
    memory = _mean_by_uid(attributor, results.get("memory_mib", []))
    power = _mean_by_uid(attributor, results.get("power_watts", []))
    energy = _energy(attributor, results.get("power_watts", []), step)
    uids = set(util) | set(memory) | set(power)
    return {
        uid: UsageFact(util.get(uid), memory.get(uid), power.get(uid), energy.get(uid))
        for uid in uids
    }


def _energy(attributor: Attributor, series, step: float) -> dict[str, float]:
    """kWh: each power sample (W) stands for one step of seconds."""
    joules: dict[str, float] = defaultdict(float)
    for s in series:
        for t, watts in s.points:
            hit = attributor.locate(s.namespace, s.pod, t) if s.pod else None
            if hit and 0 <= watts < 1e15:
                joules[hit[0]] += watts * step
    return {uid: j / 3.6e6 for uid, j in joules.items()}


def flavor_prices(attributor: Attributor, results: dict, step: float) -> dict[str, float]:
    """$/GPU-hour per flavor = Σ cost rate ÷ Σ GPUs over samples attributed to that flavor."""
    dollars: dict[str, float] = defaultdict(float)
    gpus: dict[str, float] = defaultdict(float)
    for key, target in (("gpu_cost_rate", dollars), ("gpu_allocation", gpus)):
        for s in results.get(key, []):
            for t, v in s.points:
                hit = attributor.locate(s.namespace, s.pod, t) if s.pod else None
                if hit:
                    target[hit[1]] += v
    return {f: dollars[f] / gpus[f] for f in dollars if gpus.get(f)}
