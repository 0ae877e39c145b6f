"""When the interactive pool would have room for one more notebook. Pure.

The pool never borrows and takes back what it lends at once (``pool_queue``), and the
portal refuses a notebook the pool has no room for (``pool_full``). So a notebook could
start once the pool's GPUs of its flavor, less those its active notebooks hold, cover
it; each active notebook frees its GPUs at its expected end: its recorded lifetime
(``run_history``) from when it was ready, never past its expiry; with no lifetime
recorded, its expiry (when the portal stops it, unless it is renewed).
"""

from __future__ import annotations

from dataclasses import dataclass

from apps.jobs.run_history import ExpectedRun
from kueuemodel import expected_run_ms


@dataclass(frozen=True)
class Holder:
    """An active notebook of the flavor: its GPUs, when it was ready (None: not yet),
    its expected lifetime if recorded, and its expiry."""

    gpus: int
    ready_ms: int | None
    expected: ExpectedRun | None
    expires_ms: int


def room_at(capacity: int, gpus: int, holders: list[Holder], *, now_ms: int, pick: str):
    """Epoch ms from which ``gpus`` more fit in ``capacity`` (None: never, as they end),
    each holder ending at its ``pick`` (``p50_s`` or ``p90_s``) lifetime."""
    free = capacity - sum(h.gpus for h in holders)
    if free >= gpus:
        return now_ms
    for end_ms, held in sorted((_end_ms(h, now_ms, pick), h.gpus) for h in holders):
        free += held
        if free >= gpus:
            return end_ms
    return None


def _end_ms(holder: Holder, now_ms: int, pick: str) -> int:
    if holder.expected is None:
        return max(now_ms, holder.expires_ms)
    start_ms = now_ms if holder.ready_ms is None else holder.ready_ms
    run_ms = expected_run_ms(
        holder.ready_ms,
        round(getattr(holder.expected, pick) * 1000),
        now_ms,
        bound_ms=holder.expires_ms - start_ms,
    )
    return max(now_ms, start_ms + run_ms)
