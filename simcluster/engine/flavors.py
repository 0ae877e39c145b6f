"""Flavor assignment: pick one ResourceFlavor per (podSet, resource group).

Flavors are tried in the order the ClusterQueue lists them. Each is judged
Fit, Preempt (fits only after evicting someone) or NoFit. ``flavorFungibility``
decides whether the search stops at the first usable flavor or keeps looking
for a better one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from . import model as m
from .quota import QuotaNode, available, potential_available

FIT, PREEMPT, NO_FIT = 2, 1, 0
WAITING_FOR_QUOTA = "WaitingForQuota"
EXCEEDS_MAX_QUOTA = "ExceedsMaxQuota"
NO_MATCHING_FLAVOR = "NoMatchingFlavor"

VictimOracle = Callable[[m.Usage, bool], bool]
"""Answers: could preemption make room for this request (allowing borrowing?)."""


@dataclass(slots=True)
class Assignment:
    """Outcome of flavor assignment for a whole workload."""

    mode: int
    pod_sets: tuple[m.PodSetAssignment, ...] = ()
    usage: m.Usage | None = None
    borrowing: bool = False
    reason: str = WAITING_FOR_QUOTA
    message: str = ""
    reserve: m.Usage | None = None
    """NoFit only: the request of a flavor that needed preemption but had no victims."""


@dataclass(frozen=True, slots=True)
class _Context:
    cq: m.ClusterQueue
    node: QuotaNode
    flavors: dict[str, m.ResourceFlavor]
    can_preempt: VictimOracle
    fair_sharing: bool


@dataclass(slots=True)
class _Option:
    flavor: str
    mode: int
    borrowing: bool
    cells: m.Usage
    problem: str = ""
    kind: str = WAITING_FOR_QUOTA


def assign_flavors(
    wl: m.Workload,
    cq: m.ClusterQueue,
    node: QuotaNode,
    flavors: dict[str, m.ResourceFlavor],
    can_preempt: VictimOracle,
    fair_sharing: bool = False,
) -> Assignment:
    """Choose flavors for every podSet of ``wl`` against current quota usage."""
    ctx = _Context(cq, node, flavors, can_preempt, fair_sharing)
    usage: m.Usage = {}
    assigned: list[m.PodSetAssignment] = []
    mode, borrowing = FIT, False
    for pod_set in wl.pod_sets:
        chosen: dict[str, str] = {}
        cells_for_set: m.Usage = {}
        requests = pod_set.total()
        uncovered = _uncovered(requests, cq)
        if uncovered:
            message = f"couldn't assign flavors to pod set {pod_set.name}: resource {uncovered} unavailable in ClusterQueue"
            return Assignment(NO_FIT, reason=NO_MATCHING_FLAVOR, message=message)
        for group in cq.resource_groups:
            wanted = {res: amount for res, amount in requests.items() if res in group.covered}
            if not wanted:
                continue
            option, problems = _pick(ctx, pod_set, group, wanted, usage)
            if option is None:
                return _failure(pod_set.name, problems, usage)
            mode, borrowing = min(mode, option.mode), borrowing or option.borrowing
            for cell, amount in option.cells.items():
                usage[cell] = usage.get(cell, 0) + amount
                cells_for_set[cell] = amount
                chosen[cell[1]] = option.flavor
        assigned.append(m.PodSetAssignment(pod_set.name, chosen, cells_for_set, pod_set.count))
    return Assignment(mode, tuple(assigned), usage, borrowing)


def _uncovered(requests: dict[str, int], cq: m.ClusterQueue) -> str | None:
    covered = {res for group in cq.resource_groups for res in group.covered}
    return next((res for res in requests if res not in covered), None)


def _failure(pod_set: str, problems: list[_Option], usage: m.Usage) -> Assignment:
    kinds = {p.kind for p in problems}
    if kinds == {NO_MATCHING_FLAVOR}:
        reason = NO_MATCHING_FLAVOR
    elif WAITING_FOR_QUOTA not in kinds:
        reason = EXCEEDS_MAX_QUOTA
    else:
        reason = WAITING_FOR_QUOTA
    detail = "; ".join(p.problem for p in problems) or "no flavor available"
    failed = Assignment(
        NO_FIT, reason=reason, message=f"couldn't assign flavors to pod set {pod_set}: {detail}"
    )
    # Kueue keeps such a head in Preempt mode with no targets; the scheduler
    # then holds quota for it for the rest of the cycle (see scheduler._reserve).
    victimless = next((p for p in problems if p.mode == PREEMPT), None)
    if victimless is not None:
        failed.reserve = dict(usage)
        for cell, amount in victimless.cells.items():
            failed.reserve[cell] = failed.reserve.get(cell, 0) + amount
        failed.borrowing = victimless.borrowing
    return failed


def _pick(
    ctx: _Context, pod_set: m.PodSet, group: m.ResourceGroup, wanted: dict[str, int], usage: m.Usage
) -> tuple[_Option | None, list[_Option]]:
    """Walk the group's flavors honouring flavorFungibility; return the winner."""
    flavors, can_preempt = ctx.flavors, ctx.can_preempt
    fungibility = ctx.cq.fungibility
    label_keys = {
        k for f in group.flavors if f.name in flavors for k in flavors[f.name].node_labels
    }
    candidates: list[_Option] = []
    problems: list[_Option] = []
    for quotas in group.flavors:
        option = _judge(ctx, pod_set, quotas, wanted, usage, label_keys)
        if option.mode == NO_FIT:
            problems.append(option)
            continue
        if option.mode == FIT and not option.borrowing:
            return option, problems
        if option.mode == FIT and fungibility.when_can_borrow == m.MAY_STOP:
            return option, problems
        if option.mode == PREEMPT and fungibility.when_can_preempt == m.MAY_STOP:
            if can_preempt(option.cells, option.borrowing):
                return option, problems
            option.problem = f"no workloads to preempt in flavor {quotas.name}"
            problems.append(option)
            continue
        candidates.append(option)
    return _best(candidates, fungibility.preference, can_preempt, problems), problems


def _best(
    candidates: list[_Option], preference: str, can_preempt: VictimOracle, problems: list[_Option]
) -> _Option | None:
    """Rank what the full scan found; preemption options need real victims."""
    if preference == m.PREEMPTION_OVER_BORROWING:
        ranked = sorted(candidates, key=lambda o: (o.borrowing, -o.mode))
    else:
        ranked = sorted(candidates, key=lambda o: (-o.mode, o.borrowing))
    for option in ranked:
        if option.mode == FIT or can_preempt(option.cells, option.borrowing):
            return option
        option.problem = f"no workloads to preempt in flavor {option.flavor}"
        problems.append(option)
    return None


def _judge(
    ctx: _Context,
    pod_set: m.PodSet,
    quotas: m.FlavorQuotas,
    wanted: dict[str, int],
    usage: m.Usage,
    label_keys: set[str],
) -> _Option:
    """Classify one flavor for one podSet's requests in one resource group."""
    name, node = quotas.name, ctx.node
    flavor = ctx.flavors.get(name)
    mismatch = _mismatch(pod_set, flavor, label_keys, name)
    if mismatch:
        return _Option(name, NO_FIT, False, {}, mismatch, NO_MATCHING_FLAVOR)
    mode, borrowing, cells = FIT, False, {}
    for resource, amount in wanted.items():
        cell = (name, resource)
        cells[cell] = amount
        total = amount + usage.get(cell, 0)
        ceiling = potential_available(node, cell)
        if total > ceiling:
            problem = f"insufficient quota for {resource} in flavor {name}, request > maximum capacity ({_fmt(total)} > {_fmt(ceiling)})"
            return _Option(name, NO_FIT, False, {}, problem, EXCEEDS_MAX_QUOTA)
        borrowing = borrowing or node.usage.get(cell, 0) + total > node.subtree_quota.get(cell, 0)
        free = available(node, cell)
        if total <= free:
            continue
        if not _may_preempt(ctx, cell, total):
            problem = f"insufficient unused quota for {resource} in flavor {name}, {_fmt(total - free)} more needed"
            return _Option(name, NO_FIT, False, {}, problem, WAITING_FOR_QUOTA)
        mode = PREEMPT
    return _Option(name, mode, borrowing, cells)


def _may_preempt(ctx: _Context, cell: m.FlavorResource, total: int) -> bool:
    """Kueue only tries preemption when the request alone fits the nominal quota,
    or when the policy allows preempting while borrowing."""
    policy = ctx.cq.preemption
    if policy.within_cluster_queue == m.NEVER and policy.reclaim_within_cohort == m.NEVER:
        return False
    if total <= ctx.node.subtree_quota.get(cell, 0):
        return True
    if ctx.fair_sharing:
        return policy.reclaim_within_cohort != m.NEVER
    return policy.borrow_within_cohort != m.NEVER


def _mismatch(
    pod_set: m.PodSet, flavor: m.ResourceFlavor | None, label_keys: set[str], name: str
) -> str:
    if flavor is None:
        return f"flavor {name} not found"
    for key, value in pod_set.node_selector.items():
        if key in label_keys and flavor.node_labels.get(key) != value:
            return f"flavor {name} doesn't match node affinity"
    tolerations = pod_set.tolerations + flavor.tolerations
    for taint in flavor.node_taints:
        if taint.effect in ("NoSchedule", "NoExecute") and not any(
            t.tolerates(taint) for t in tolerations
        ):
            return f"untolerated taint {taint.key}={taint.value}:{taint.effect} in flavor {name}"
    return ""


def _fmt(milli: int) -> str:
    return f"{milli // 1000}" if milli % 1000 == 0 else f"{milli}m"
