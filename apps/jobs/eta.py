"""A quoted job's start, estimated by running the cluster forward. Pure.

Every running and queued workload gets the run time its recorded history says
(``run_history``), once at the 50th and once at the 90th percentile, and the admission
model runs the cluster forward with the quoted job added last; its first admission in
each run is the ``p50`` and the ``p90`` estimate. A workload without a recorded run time
gets none: the model keeps it running, so a start that needs it to end is not found.
Work expected to arrive meanwhile (``ArrivalStream``: the recent rate of submissions of
higher-or-equal priority to the job's queue) arrives evenly at that rate, each with its
recorded run time at the same percentile.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from functools import cache
from statistics import NormalDist

from apps.jobs.run_history import ExpectedRun
from informer import objects as o
from kueuemodel import DURATION_ANNOTATION, first_admissions, model_copy, with_run_time

HORIZON_MS = 14 * 24 * 3_600_000
# At most this many arrivals are simulated, of all streams together (the note says up to
# when).
MAX_ARRIVALS = 100


@dataclass(frozen=True)
class ArrivalStream:
    """Work expected to arrive: one ``manifest`` (a Job of the recorded median shape)
    every 1/``per_hour`` hours from now, each running ``run`` (its recorded times)."""

    manifest: dict
    per_hour: float
    run: ExpectedRun


def arrival_times(per_hour: float, *, now_ms: int, until_ms: int, early: bool = False) -> list[int]:
    """Arrivals at ``per_hour``, at most ``MAX_ARRIVALS`` and none past ``until_ms``:
    evenly spaced, the first one gap after now (the expected arrivals); ``early``: the
    k-th at the time a steady (Poisson) stream at that rate brings k arrivals by only
    1 time in 10 (``EARLY``), for the p90 run."""
    gap_ms = 3_600_000 / per_hour
    spans = early_gaps() if early else range(1, MAX_ARRIVALS + 1)
    times = (now_ms + round(gap_ms * k) for k in spans)
    return [at for at in times if at <= until_ms]


# In the p90 run, work arrives as early as it does 1 time in 10.
EARLY = 0.1


@cache
def early_gaps() -> tuple[float, ...]:
    """For k = 1 … ``MAX_ARRIVALS``: x such that k or more arrivals of a Poisson stream
    of rate 1 come by x with probability ``EARLY`` (the ``EARLY`` quantile of Gamma(k, 1))."""
    return tuple(_erlang_quantile(k, EARLY) for k in range(1, MAX_ARRIVALS + 1))


def _erlang_quantile(k: int, q: float) -> float:
    """x with P(k-th arrival by x) = 1 − e^(−x) Σ_{i<k} x^i / i! = q: Newton's method from
    the Wilson–Hilferty approximation (already within a few per cent)."""
    z = NormalDist().inv_cdf(q)
    x = max(k * (1 - 1 / (9 * k) + z / (3 * math.sqrt(k))) ** 3, 1e-6)
    for _ in range(6):
        term, total = 1.0, 1.0
        for i in range(1, k):
            term *= x / i
            total += term
        cdf, density = 1 - math.exp(-x) * total, math.exp(-x) * term
        x = max(x - (cdf - q) / density, x / 2)
    return x


def arrivals_end_ms(streams: tuple[ArrivalStream, ...], *, now_ms: int, until_ms: int) -> int:
    """Arrivals stop at ``until_ms``, or sooner, when ``MAX_ARRIVALS`` in all are expected
    (the model's work grows with every arrival, and the quote must answer in a second)."""
    per_hour = sum(s.per_hour for s in streams)
    if not per_hour:
        return until_ms
    return min(until_ms, now_ms + round(MAX_ARRIVALS / per_hour * 3_600_000))


def arrival_trace(
    streams: tuple[ArrivalStream, ...], pick: str, *, now_ms: int, until_ms: int
) -> list[tuple[int, dict]]:
    """(epoch ms, manifest) of every expected arrival, named apart, with its run time at
    ``pick`` (``p50_s`` or ``p90_s``); with ``p90_s`` the arrivals come early."""
    trace = []
    until_ms = arrivals_end_ms(streams, now_ms=now_ms, until_ms=until_ms)
    for index, stream in enumerate(streams):
        run_ms = round(getattr(stream.run, pick) * 1000)
        times = arrival_times(
            stream.per_hour, now_ms=now_ms, until_ms=until_ms, early=pick == "p90_s"
        )
        for k, at in enumerate(times):
            obj = with_run_time(stream.manifest, run_ms, at, bound_ms=stream.run.bound_s * 1000)
            obj["metadata"]["name"] = f"expected-arrival-{index}-{k}"
            trace.append((at, obj))
    return trace


@dataclass(frozen=True)
class StartEstimate:
    """Epoch ms of the start at either percentile (None: not within the horizon);
    ``unknown`` names the workloads (``namespace/name``) without a recorded run time."""

    p50_ms: int | None
    p90_ms: int | None
    unknown: tuple[str, ...]


def estimate_start(
    objects: list[dict],
    workloads: list[dict],
    candidate: dict,
    *,
    now_ms: int,
    expected: dict[str, ExpectedRun],
    arrivals: tuple[ArrivalStream, ...] = (),
    reported: dict[str, dict[str, int] | None] | None = None,
) -> StartEstimate:
    """``workloads``: every unfinished Workload read from the cluster; ``expected``:
    ``namespace/name`` → the expected run of the ones whose history is known;
    ``arrivals``: work expected to be submitted meanwhile; ``reported``: the visibility
    API's positions per ClusterQueue (``in_reported_order``)."""
    until_ms = now_ms + HORIZON_MS
    queued = in_reported_order(workloads, reported or {})
    starts = [
        first_admissions(
            objects,
            [
                *(_with_expected(w, expected, pick, now_ms) for w in queued),
                without_run_time(candidate),
            ],
            start_ms=now_ms,
            until_ms=until_ms,
            arrivals=arrival_trace(arrivals, pick, now_ms=now_ms, until_ms=until_ms),
        )[-1]
        for pick in ("p50_s", "p90_s")
    ]
    unknown = tuple(sorted(o.key(w) for w in workloads if o.key(w) not in expected))
    return StartEstimate(starts[0], starts[1], unknown)


def in_reported_order(
    workloads: list[dict], reported: dict[str, dict[str, int] | None]
) -> list[dict]:
    """``workloads``, the pending ones Kueue's visibility API listed re-timed so the model
    takes them in Kueue's order: ``reported`` is ClusterQueue → ``namespace/name`` →
    position (None: not served). Within one queue and priority the listed workloads swap
    creation times so that the first in Kueue's order has the oldest; the model orders by
    priority, then creation time, so an order across priorities is not followed."""
    groups: dict[tuple[str, int], list[tuple[int, dict]]] = defaultdict(list)
    by_key = {o.key(w): w for w in workloads}
    for queue, positions in reported.items():
        for key, position in (positions or {}).items():
            if key in by_key:
                groups[(queue, o.priority(by_key[key]))].append((position, by_key[key]))
    retimed = {}
    for members in groups.values():
        stamps = sorted(_created(w) for _, w in members)
        for stamp, (_, workload) in zip(stamps, sorted(members, key=lambda m: m[0]), strict=True):
            retimed[o.key(workload)] = _created_at(workload, stamp)
    return [retimed.get(o.key(w), w) for w in workloads]


def _created(workload: dict) -> str:
    return (workload.get("metadata") or {}).get("creationTimestamp") or ""


def _created_at(workload: dict, stamp: str) -> dict:
    return {
        **workload,
        "metadata": {**(workload.get("metadata") or {}), "creationTimestamp": stamp},
    }


def _with_expected(workload: dict, expected: dict[str, ExpectedRun], pick: str, now_ms: int):
    run = expected.get(o.key(workload))
    if run is None:
        return without_run_time(workload)
    # with_run_time's annotation replaces any run time a simulated cluster annotated.
    return with_run_time(
        workload, round(getattr(run, pick) * 1000), now_ms, bound_ms=run.bound_s * 1000
    )


def without_run_time(obj: dict) -> dict:
    """A copy for the model (``model_copy``: it writes status into what it is given),
    without the run time a simulated cluster annotates: no real cluster knows it."""
    obj = model_copy(obj)
    obj["metadata"]["annotations"].pop(DURATION_ANNOTATION, None)
    return obj
