"""The demo's sweep: alice's learning-rate sweep, submitted once the week has been played,
so that `make run` shows trials released two at a time (her team's default limit per
user), each ending after 15 minutes and making room for the next."""

from __future__ import annotations

from apps.accounts.models import User
from apps.jobs.models import Sweep
from apps.jobs.services import JobRequest, Principal
from apps.jobs.services.sweeps import SweepRequest, submit_sweep

DEMO_SWEEP_KEY = "demo-learning-rate-sweep"  # submitted once, however often this runs
TRIAL = JobRequest(
    template="sweep-trial",
    flavor="h100-80gb",
    gpus_per_pod=1,
    sim_duration_seconds=15 * 60,
    display_name="learning-rate sweep",
)
GRID = {"lr": ["3e-4", "1e-4", "3e-5"], "seed": [1, 2]}


def submit_demo_sweep() -> Sweep | None:
    """alice's sweep (6 trials), or None where the demo was never loaded."""
    alice = User.objects.filter(username="alice", is_active=True).first()
    if alice is None:
        return None
    request = SweepRequest(job=TRIAL, grid=GRID)
    return submit_sweep(
        alice, request, actor=Principal(alice), idempotency_key=DEMO_SWEEP_KEY
    ).record
