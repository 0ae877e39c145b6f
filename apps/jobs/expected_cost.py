"""What a job is expected to cost: GPUs × expected run time × its flavor's price. Pure.

The run time is the median of the recorded runs of its template and team (at most its
maximum run time), or, with none recorded, its maximum run time: what it costs at most.
"""

from __future__ import annotations

from dataclasses import dataclass

from apps.jobs.run_history import ExpectedRun
from core.prices import FlavorPrice

RECORDED_P50, MAX_RUNTIME = "recorded_p50", "max_runtime"


@dataclass(frozen=True)
class ExpectedCost:
    usd: float
    gpu_hours: float
    usd_per_gpu_hour: float
    price_source: str
    run_hours: float
    run_time_basis: str  # RECORDED_P50 or MAX_RUNTIME
    runs_recorded: int

    def as_dict(self) -> dict:
        return {
            "usd": round(self.usd, 2),
            "gpu_hours": round(self.gpu_hours, 3),
            "usd_per_gpu_hour": self.usd_per_gpu_hour,
            "price_source": self.price_source,
            "run_hours": round(self.run_hours, 3),
            "run_time_basis": self.run_time_basis,
            "runs_recorded": self.runs_recorded,
        }


def run_time(expected: ExpectedRun | None, max_runtime_s: int) -> tuple[float, str]:
    """Seconds a job is expected to run, and on what basis: the recorded median, or,
    with none recorded, its maximum run time."""
    if expected is None:
        return max_runtime_s, MAX_RUNTIME
    return expected.p50_s, RECORDED_P50


def expected_cost(
    gpus: int, expected: ExpectedRun | None, max_runtime_s: int, price: FlavorPrice
) -> ExpectedCost:
    run_s, basis = run_time(expected, max_runtime_s)
    runs = 0 if expected is None else expected.samples
    gpu_hours = gpus * run_s / 3600
    return ExpectedCost(
        gpu_hours * price.usd_per_gpu_hour,
        gpu_hours,
        price.usd_per_gpu_hour,
        price.source,
        run_s / 3600,
        basis,
        runs,
    )
