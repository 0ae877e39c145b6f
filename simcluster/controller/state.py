"""The controller's memory of each Workload it manages (plain data)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kueuemodel import Workload

from .owners import Owner

Obj = dict[str, Any]
WAITING, UNPLACED, RUNNING, STOPPING, FINISHED = (
    "waiting",
    "unplaced",
    "running",
    "stopping",
    "finished",
)
ACTIVE = (UNPLACED, RUNNING)


@dataclass
class PodRecord:
    """A pod the controller created or drives, and the GPUs it holds."""

    name: str
    node: str | None
    phase: str
    start_ms: int | None = None
    devices: dict[str, list[int]] = field(default_factory=dict)
    container: str = ""


@dataclass
class Tracked:
    """One Workload: its owner, pods, last published phase and status."""

    namespace: str
    name: str
    owner: Owner | None = None
    pods: list[PodRecord] = field(default_factory=list)
    phase: tuple[str, int, int | None] | None = None
    status: Obj | None = None
    checkpoint_ms: int | None = None

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


def run_phase(wl: Workload) -> str:
    """Where the workload is in its life, as its pods would show it."""
    if wl.finished:
        return FINISHED
    if wl.stopping:
        return STOPPING  # evicted: pods gone, quota held until the engine releases it
    if wl.admission is None:
        return WAITING
    return RUNNING if wl.started_ms is not None else UNPLACED


def phase_of(wl: Workload) -> tuple[str, int, int | None]:
    """What a change of run, attempt or start time is detected by."""
    return (run_phase(wl), wl.evictions, wl.started_ms)
