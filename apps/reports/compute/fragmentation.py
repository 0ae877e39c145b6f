"""Fragmentation: GPUs free on a flavor while a pod that would fit in that many could
not be placed on any one node.

Source: kube-state-metrics (``records.Placement``). A pod is *blocked* at t when
``kube_pod_status_unschedulable`` says so (PodScheduled=False, reason Unschedulable —
a pod condition; Kueue itself has no such Workload reason); its flavor is the one
Kueue admitted its Workload to. Free units of a (flavor, resource) = allocatable on the
flavor's nodes − requests of the pods bound there. At each step t and per (flavor,
resource): if some blocked pod asks for ≤ free units, the free units count as
fragmented for that step. Blocked demand = Σ units × step of blocked pods. Whole GPUs
(``nvidia_com_gpu``) and each MIG profile are separate rows; only whole GPUs make the
headline GPU-hours.
"""

from __future__ import annotations

from collections import defaultdict

from apps.reports.compute.records import HOUR, WeekInput

WHOLE_GPU = "nvidia_com_gpu"


def unit_of(resource: str) -> str:
    """``nvidia_com_gpu`` → ``GPU``; ``nvidia_com_mig_1g_10gb`` → ``MIG mig_1g_10gb``."""
    return "GPU" if resource == WHOLE_GPU else f"MIG {resource.removeprefix('nvidia_com_')}"


def rows(week: WeekInput) -> list[dict]:
    placement = week.placement
    blocked: dict[tuple[str, str], dict[float, list[float]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for t, flavor, resource, units in placement.blocked:
        if week.start <= t < week.horizon:
            blocked[(flavor, resource)][t].append(units)
    out = []
    for key in sorted(set(placement.free) | set(blocked)):
        free = placement.free.get(key, {})
        fragmented = demand = 0.0
        for t, asks in blocked.get(key, {}).items():
            demand += sum(asks)
            if min(asks) <= free.get(t, 0.0):
                fragmented += free[t]
        out.append(
            {
                "flavor": key[0],
                "resource": key[1],
                "unit": unit_of(key[1]),
                "capacity": placement.capacity.get(key, 0.0),
                "fragmented_hours": fragmented * placement.step / HOUR,
                "blocked_demand_hours": demand * placement.step / HOUR,
            }
        )
    return out


def summary(week: WeekInput) -> dict:
    if week.placement is None:
        # No kube-state-metrics: unknown, not zero (the report lists the gap).
        return {"capacity_gpus": None, "fragmented_gpu_hours": None,
                "blocked_demand_gpu_hours": None, "flavors": []}  # fmt: skip
    table = rows(week)
    whole = [r for r in table if r["resource"] == WHOLE_GPU]
    return {
        "capacity_gpus": sum(r["capacity"] for r in whole),
        "fragmented_gpu_hours": sum(r["fragmented_hours"] for r in whole),
        "blocked_demand_gpu_hours": sum(r["blocked_demand_hours"] for r in whole),
        "flavors": table,
    }
