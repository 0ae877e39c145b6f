"""A quote's verdict: what Kueue would do with a request if it were submitted now.

Pure: the queue objects and Workloads read from the cluster, plus the rendered Job of
the request, go into the same admission model the simulated cluster and the what-if
run (``kueuemodel``); the answer comes out. Nothing is invented: a request the model
does not admit now is ``later`` with Kueue's pending reason, and no start estimate.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field

from apps.jobs.status import Need, pending_reason
from informer import objects as o
from kueuemodel import DURATION_ANNOTATION, Simulation, cluster_queue_status

NEVER, NOW, LATER = "never", "now", "later"
# Long enough for preempted pods to stop and the preemptor to be admitted in their place;
# nothing in the cluster ends within it, since no Workload carries a run time (``_as_read``).
SETTLE_MS = 60_000


@dataclass(frozen=True)
class Verdict:
    """``never``, ``now`` or ``later``, with the facts behind it in plain words."""

    verdict: str
    summary: str
    input_field: str | None = None
    flavors: dict[str, dict[str, str]] = field(default_factory=dict)
    borrows: bool = False
    preempts: tuple[str, ...] = ()
    preempts_hidden: int = 0
    pending_reason: str = ""

    def as_dict(self) -> dict:
        return {
            "verdict": self.verdict,
            "summary": self.summary,
            "field": self.input_field,
            "flavors": self.flavors,
            "borrows": self.borrows,
            "preempts": list(self.preempts),
            "preempts_hidden": self.preempts_hidden,
            "pending_reason": self.pending_reason,
            "estimated_start": None,  # no estimate yet: see docs/quotes.md
        }


def never(detail: str, *, field_name: str | None) -> Verdict:
    """A request no queue state could admit; ``detail`` names the limit and the fix."""
    return Verdict(NEVER, detail, input_field=field_name)


def admission_verdict(
    objects: list[dict],
    workloads: list[dict],
    candidate: dict,
    *,
    now_ms: int,
    need: Need,
    may_see: Callable[[str], bool],
) -> Verdict:
    """What the model does with ``candidate`` (a Job manifest) on the cluster as it is.

    ``objects``: the queue objects; ``workloads``: every unfinished Workload, admitted
    ones with their ``status.admission``; ``need``: the GPUs it asks for, to say why it
    would wait as the job's page would; ``may_see(namespace)``: whether the asker may
    see a workload of that namespace by name (others are only counted).
    """
    running = [_as_read(w) for w in workloads]
    sim = Simulation([*objects, *running], start_ms=now_ms, record_events=False)
    sim.run(until_ms=now_ms)  # whatever the cluster would admit anyway goes first
    before = set(sim.cluster.workloads)
    history: list[tuple] = []
    sim.cluster.history = history
    sim.add_workload(_as_read(candidate))
    sim.run(until_ms=now_ms + SETTLE_MS)
    added = set(sim.cluster.workloads) - before
    if not added:
        return Verdict(LATER, "Kueue would not queue it: its queue is missing in the cluster")
    key = added.pop()
    workload = sim.cluster.workloads[key]
    if workload.admission is None:
        queues = [obj for obj in objects if obj.get("kind") == "ClusterQueue"]
        return _later(pending_reason(workload.obj, [], queues, need))
    victims = [wl for _, kind, wl, _ in history if kind == "evict" and wl.key != key]
    return _now(sim, workload, victims, may_see)


def _as_read(obj: dict) -> dict:
    """A copy for the model (it writes status into what it is given), without the run time
    a simulated cluster annotates: no real cluster knows how long a workload will run."""
    obj = copy.deepcopy(obj)
    annotations = (obj.get("metadata") or {}).get("annotations") or {}
    annotations.pop(DURATION_ANNOTATION, None)
    return obj


def _now(sim: Simulation, workload, victims: list, may_see: Callable[[str], bool]) -> Verdict:
    flavors = o.flavors_by_pod_set(workload.obj)
    borrows = _borrows(sim, workload.admission.cluster_queue, flavors)
    shown = tuple(sorted({wl.key for wl in victims if may_see(wl.namespace)}))
    hidden = len({wl.key for wl in victims}) - len(shown)
    used = ", ".join(sorted({f for by_resource in flavors.values() for f in by_resource.values()}))
    summary = f"it would be admitted now on {used}"
    if borrows:
        summary += ", borrowing quota from its cohort"
    if shown or hidden:
        summary += f", preempting {_victims_in_words(shown, hidden)}"
    return Verdict(
        NOW, summary, flavors=flavors, borrows=borrows, preempts=shown, preempts_hidden=hidden
    )


def _victims_in_words(shown: tuple[str, ...], hidden: int) -> str:
    parts = list(shown)
    if hidden:
        parts.append(f"{hidden} workload{'s' if hidden > 1 else ''} of other teams")
    return " and ".join(parts)


def _borrows(sim: Simulation, cluster_queue: str, flavors: dict[str, dict[str, str]]) -> bool:
    """Whether the queue uses more than its own quota of any flavor the request got."""
    used = {f for by_resource in flavors.values() for f in by_resource.values()}
    usage = cluster_queue_status(sim.cluster, cluster_queue).get("flavorsReservation") or []
    return any(
        row["name"] in used and _quantity_positive(resource.get("borrowed"))
        for row in usage
        for resource in row.get("resources") or ()
    )


def _quantity_positive(value) -> bool:
    return value not in (None, "", "0", 0)


def _later(reason: str) -> Verdict:
    return Verdict(LATER, f"it would wait: {reason}; no start estimate yet", pending_reason=reason)
