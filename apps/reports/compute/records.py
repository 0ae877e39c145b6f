"""The plain records every section computes over. Times are Unix seconds (float)."""

from __future__ import annotations

from dataclasses import dataclass, field

HOUR = 3600.0

# Run, Wait and PendingSpan are never changed once the replay made them, yet not
# frozen: a week makes ~700,000 of them, and a frozen dataclass's __init__ (one
# object.__setattr__ per field) cost about six times a slotted one's.
_PER_WORKLOAD = {"slots": True, "unsafe_hash": True}


@dataclass(**_PER_WORKLOAD)
class Run:
    """One admitted interval of a workload: admission until eviction/finish/deletion.

    ``end`` is None while still admitted. ``checkpoint`` is the newest checkpoint
    the job reported inside the run (None when it never reported one).
    """

    uid: str
    team: str
    queue: str
    tier: str
    size: str
    flavor: str
    gpus: int
    start: float
    end: float | None = None
    preempted: bool = False
    preempt_reason: str = ""
    preemptor_uid: str = ""
    checkpoint: float | None = None
    notebook: bool = False


@dataclass(**_PER_WORKLOAD)
class Wait:
    """Time from creation (``initial``) or a requeue (``requeue``) to the next admission.

    ``end`` is None while the workload is still waiting.
    """

    uid: str
    team: str
    queue: str
    tier: str
    size: str
    start: float
    end: float | None
    kind: str = "initial"


@dataclass(frozen=True)
class Downtime:
    """An interval the recorder missed. ``rebuilt``: Kueue's Events covered all of it,
    so the history inside was rebuilt; otherwise what happened in it is unknown."""

    start: float
    end: float
    rebuilt: bool = False


@dataclass(**_PER_WORKLOAD)
class PendingSpan:
    """A stretch during which a workload waited with a given QuotaReserved=False reason."""

    uid: str
    gpus: int
    reason: str
    start: float
    end: float | None


@dataclass(frozen=True)
class QueueQuota:
    """Nominal GPUs of one queue on one flavor, with its limits and fair-sharing weight."""

    queue: str
    team: str
    cohort: str
    flavor: str
    nominal: float
    lending_limit: float | None = None
    weight: float = 1.0


@dataclass(frozen=True)
class UsageFact:
    """DCGM summary of one workload in the week (None: no data)."""

    util: float | None = None
    memory_mib: float | None = None
    power_watts: float | None = None
    energy_kwh: float | None = None


@dataclass(frozen=True)
class Price:
    usd_per_gpu_hour: float
    source: str  # "opencost", "price-table"


@dataclass(frozen=True)
class Placement:
    """What kube-state-metrics said about placement, on the Prometheus step grid.

    Keys are (flavor, resource) with the resource as kube-state-metrics spells it
    (``nvidia_com_gpu``, ``nvidia_com_mig_1g_10gb``): whole GPUs and each MIG
    profile are separate resources and are never added together.
    """

    step: float
    free: dict[tuple[str, str], dict[float, float]]  # → {t: free units on the flavor's nodes}
    capacity: dict[tuple[str, str], float]  # → most allocatable units seen in the week
    blocked: list[tuple[float, str, str, float]]  # (t, flavor, resource, units) per pod


@dataclass
class WeekInput:
    """Everything one week's report needs."""

    start: float
    end: float
    runs: list[Run] = field(default_factory=list)
    waits: list[Wait] = field(default_factory=list)
    pending: list[PendingSpan] = field(default_factory=list)
    quotas: list[QueueQuota] = field(default_factory=list)
    capacity: dict[str, float] = field(default_factory=dict)
    prices: dict[str, Price] = field(default_factory=dict)
    usage: dict[str, UsageFact] = field(default_factory=dict)
    downtime: list[Downtime] = field(default_factory=list)
    owners: dict[str, tuple[str, str]] = field(default_factory=dict)
    other_costs: dict[str, float] = field(default_factory=dict)
    placement: Placement | None = None  # None: kube-state-metrics not available
    # The tiers only inference services may use, and those services' lifetimes
    # (``compute.classes``).
    inference_tiers: frozenset[str] = frozenset()
    inference: list = field(default_factory=list)
    half_life_hours: float = 168.0
    now: float | None = None

    @property
    def horizon(self) -> float:
        """Where open intervals stop: the week's end, or now for the current week."""
        return self.end if self.now is None else min(self.end, self.now)

    @property
    def hours(self) -> float:
        """The whole week's length (168 h)."""
        return (self.end - self.start) / HOUR

    @property
    def covered_hours(self) -> float:
        """Hours from the week's start to its horizon: what reserved quota and capacity
        are multiplied by, so a week in progress is not charged for hours still to come."""
        return max(0.0, self.horizon - self.start) / HOUR

    @property
    def in_progress(self) -> bool:
        return self.horizon < self.end

    def period(self) -> dict:
        """The JSON ``period`` of a report: the hours it covers out of the week's."""
        return {
            "covered_hours": self.covered_hours,
            "week_hours": self.hours,
            "in_progress": self.in_progress,
        }


def run_gpu_hours(week: WeekInput) -> list[float]:
    """GPU-hours of every run inside [start, horizon), in the order of ``week.runs`` (an
    open run counts to the horizon). One loop with no call per run: a week has
    ~250,000 runs and three sections sum them; max and min are written inline (as in
    ``fairness._events``), which halves the loop's time."""
    lo, hi = week.start, week.horizon
    hours = []
    for r in week.runs:
        start, end = r.start, r.end
        start = start if start > lo else lo
        stop = hi if end is None or end > hi else end
        hours.append(r.gpus * (stop - start) / HOUR if stop > start else 0.0)
    return hours
