"""Flavor assignment: pick one ResourceFlavor per (podSet, resource group).

Flavors are tried in the order the ClusterQueue lists them. Each is judged
Fit, Preempt (fits only after evicting someone) or NoFit. ``flavorFungibility``
decides whether the search stops at the first usable flavor or keeps looking
for a better one.

What never changes for a ClusterQueue and a workload shape (which flavors a
podSet may use at all, its requests per quota cell, the most the queue could
ever get) is worked out once into a ``FlavorPlan``; ``assign_flavors`` only
reads current usage against it, because the same heads are re-judged after
every quota release in their cohort.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from . import model as m
from .quota import QuotaNode, available, borrowing_level, potential_available

Text = str | Callable[[], str]
"""A status message, or what makes it: replays that write no status never format it."""

FIT, PREEMPT, NO_FIT = 2, 1, 0
WAITING_FOR_QUOTA = "WaitingForQuota"
EXCEEDS_MAX_QUOTA = "ExceedsMaxQuota"
NO_MATCHING_FLAVOR = "NoMatchingFlavor"

VictimOracle = Callable[[m.Usage, tuple], int | None]
"""Answers: could preemption make room for this request (``cells``, ``cells_key``)?
None if not; else the borrowing level the request would have once the victims are gone."""


@dataclass(slots=True)
class Assignment:
    """Outcome of flavor assignment for a whole workload."""

    mode: int
    pod_sets: tuple[m.PodSetAssignment, ...] = ()
    usage: m.Usage | None = None
    borrowing: int = 0
    """Kueue's borrowing level (``quota.borrowing_level``): 0 when no borrowing."""
    reason: str = WAITING_FOR_QUOTA
    message: Text = ""
    reserve: m.Usage | None = None
    """NoFit only: the request of a flavor that needed preemption but had no victims."""


@dataclass(frozen=True, slots=True)
class FlavorChoice:
    """One flavor of one resource group, for one podSet's requests there."""

    name: str
    mismatch: str
    """Why this podSet can never use the flavor (labels, taints, missing); "" if it can."""
    cells: m.Usage
    """The podSet's request per quota cell of this flavor (read-only)."""
    cells_key: tuple
    """``cells`` as a sorted tuple: the victim-search memo's key."""
    ceilings: tuple[tuple[m.FlavorResource, int, int], ...]
    """(cell, request, the most the queue could ever use there)."""
    no_victims: str = ""
    """The problem to report when preemption would be needed and finds nobody."""
    assignment: m.PodSetAssignment | None = None
    """The podSet's assignment to this flavor, when this is its only resource group."""


@dataclass(frozen=True, slots=True)
class PodSetPlan:
    name: str
    count: int
    groups: tuple[tuple[FlavorChoice, ...], ...]
    """Per resource group the podSet requests from: its flavors, in queue order."""


@dataclass(frozen=True, slots=True)
class FlavorPlan:
    """What flavor assignment needs of a (ClusterQueue, workload shape) pair."""

    pod_sets: tuple[PodSetPlan, ...]
    failure: Assignment | None = None
    """Set when a requested resource is in no resource group: no usage can change that."""


def plan_flavors(
    wl: m.Workload, cq: m.ClusterQueue, node: QuotaNode, flavors: dict[str, m.ResourceFlavor]
) -> FlavorPlan:
    """The static half of flavor assignment; valid while the quota tree is unchanged."""
    covered = {res for group in cq.resource_groups for res in group.covered}
    plans = []
    for pod_set in wl.pod_sets:
        requests = pod_set.total()
        uncovered = next((res for res in requests if res not in covered), None)
        if uncovered:
            message = f"couldn't assign flavors to pod set {pod_set.name}: resource {uncovered} unavailable in ClusterQueue"
            return FlavorPlan((), Assignment(NO_FIT, reason=NO_MATCHING_FLAVOR, message=message))
        groups = []
        for group in cq.resource_groups:
            wanted = {res: amount for res, amount in requests.items() if res in group.covered}
            if wanted:
                groups.append(_group_choices(pod_set, group, wanted, node, flavors))
        if len(groups) == 1:
            groups = [tuple(_with_assignment(c, pod_set) for c in groups[0])]
        plans.append(PodSetPlan(pod_set.name, pod_set.count, tuple(groups)))
    return FlavorPlan(tuple(plans))


def _with_assignment(choice: FlavorChoice, pod_set: m.PodSet) -> FlavorChoice:
    flavors = {resource: choice.name for _, resource in choice.cells}
    psa = m.PodSetAssignment(pod_set.name, flavors, choice.cells, pod_set.count)
    return replace(choice, assignment=psa)


def _group_choices(
    pod_set: m.PodSet,
    group: m.ResourceGroup,
    wanted: dict[str, int],
    node: QuotaNode,
    flavors: dict[str, m.ResourceFlavor],
) -> tuple[FlavorChoice, ...]:
    label_keys = {
        k for f in group.flavors if f.name in flavors for k in flavors[f.name].node_labels
    }
    choices = []
    for quotas in group.flavors:
        cells = {(quotas.name, res): amount for res, amount in wanted.items()}
        ceilings = tuple(
            (cell, amount, potential_available(node, cell)) for cell, amount in cells.items()
        )
        mismatch = _mismatch(pod_set, flavors.get(quotas.name), label_keys, quotas.name)
        choices.append(
            FlavorChoice(
                quotas.name,
                mismatch,
                cells,
                tuple(sorted(cells.items())),
                ceilings,
                f"no workloads to preempt in flavor {quotas.name}",
            )
        )
    return tuple(choices)


@dataclass(frozen=True, slots=True)
class _Context:
    cq: m.ClusterQueue
    node: QuotaNode
    can_preempt: VictimOracle
    fair_sharing: bool


@dataclass(slots=True)
class _Option:
    flavor: str
    mode: int
    borrowing: int
    cells: m.Usage
    cells_key: tuple = ()
    problem: Text = ""
    no_victims: str = ""
    kind: str = WAITING_FOR_QUOTA
    assignment: m.PodSetAssignment | None = None


def assign_flavors(
    plan: FlavorPlan,
    cq: m.ClusterQueue,
    node: QuotaNode,
    can_preempt: VictimOracle,
    fair_sharing: bool = False,
) -> Assignment:
    """Choose flavors for every podSet of the planned workload against current usage."""
    if plan.failure is not None:
        return plan.failure
    ctx = _Context(cq, node, can_preempt, fair_sharing)
    if len(plan.pod_sets) == 1 and len(plan.pod_sets[0].groups) == 1:
        # The usual workload: one podSet, one resource group; its assignment is planned.
        option, problems = _pick(ctx, plan.pod_sets[0].groups[0], {})
        if option is None:
            return _failure(plan.pod_sets[0].name, problems, {})
        return Assignment(option.mode, (option.assignment,), option.cells, option.borrowing)
    usage: m.Usage = {}
    assigned: list[m.PodSetAssignment] = []
    mode, borrowing = FIT, 0
    for pod_set in plan.pod_sets:
        chosen: dict[str, str] = {}
        cells_for_set: m.Usage = {}
        for choices in pod_set.groups:
            option, problems = _pick(ctx, choices, usage)
            if option is None:
                return _failure(pod_set.name, problems, usage)
            mode, borrowing = min(mode, option.mode), max(borrowing, option.borrowing)
            for cell, amount in option.cells.items():
                usage[cell] = usage.get(cell, 0) + amount
                cells_for_set[cell] = amount
                chosen[cell[1]] = option.flavor
        assigned.append(m.PodSetAssignment(pod_set.name, chosen, cells_for_set, pod_set.count))
    return Assignment(mode, tuple(assigned), usage, borrowing)


def _failure(pod_set: str, problems: list[_Option], usage: m.Usage) -> Assignment:
    kinds = {p.kind for p in problems}
    if kinds == {NO_MATCHING_FLAVOR}:
        reason = NO_MATCHING_FLAVOR
    elif WAITING_FOR_QUOTA not in kinds:
        reason = EXCEEDS_MAX_QUOTA
    else:
        reason = WAITING_FOR_QUOTA

    def message() -> str:
        detail = "; ".join(_text(p.problem) for p in problems) or "no flavor available"
        return f"couldn't assign flavors to pod set {pod_set}: {detail}"

    failed = Assignment(NO_FIT, reason=reason, message=message)
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
    ctx: _Context, choices: tuple[FlavorChoice, ...], usage: m.Usage
) -> tuple[_Option | None, list[_Option]]:
    """Walk the group's flavors honouring flavorFungibility; return the winner."""
    can_preempt = ctx.can_preempt
    fungibility = ctx.cq.fungibility
    candidates: list[_Option] = []
    problems: list[_Option] = []
    for choice in choices:
        option = _judge(ctx, choice, usage)
        if option.mode == NO_FIT:
            problems.append(option)
            continue
        if option.mode == FIT and not option.borrowing:
            return option, problems
        if option.mode == FIT and fungibility.when_can_borrow == m.MAY_STOP:
            return option, problems
        if option.mode == PREEMPT and not _victims_found(option, can_preempt):
            problems.append(option)
            continue
        if (
            option.mode == PREEMPT
            and fungibility.when_can_preempt == m.MAY_STOP
            and (not option.borrowing or fungibility.when_can_borrow == m.MAY_STOP)
        ):
            return option, problems
        candidates.append(option)
    return _best(candidates, fungibility.preference), problems


def _victims_found(option: _Option, can_preempt: VictimOracle) -> bool:
    """Ask the oracle; a preemption option then ranks by its level after the evictions,
    as Kueue's flavor assigner simulates each preemption before comparing flavors."""
    level = can_preempt(option.cells, option.cells_key)
    if level is None:
        option.problem = option.no_victims
        return False
    option.borrowing = level
    return True


def _best(candidates: list[_Option], preference: str) -> _Option | None:
    """Rank what the full scan found (every preemption option has victims)."""
    if preference == m.PREEMPTION_OVER_BORROWING:
        ranked = sorted(candidates, key=lambda o: (o.borrowing, -o.mode))
    else:
        ranked = sorted(candidates, key=lambda o: (-o.mode, o.borrowing))
    return ranked[0] if ranked else None


def _judge(ctx: _Context, choice: FlavorChoice, usage: m.Usage) -> _Option:
    """Classify one flavor for one podSet's requests in one resource group."""
    name, node = choice.name, ctx.node
    if choice.mismatch:
        return _Option(name, NO_FIT, 0, {}, (), choice.mismatch, kind=NO_MATCHING_FLAVOR)
    mode, borrowing = FIT, 0
    for cell, amount, ceiling in choice.ceilings:
        resource = cell[1]
        total = amount + usage.get(cell, 0)
        if total > ceiling:

            def problem(resource=resource, total=total, ceiling=ceiling) -> str:
                return f"insufficient quota for {resource} in flavor {name}, request > maximum capacity ({_fmt(total)} > {_fmt(ceiling)})"

            return _Option(name, NO_FIT, 0, {}, (), problem, kind=EXCEEDS_MAX_QUOTA)
        level, in_subtree = borrowing_level(node, cell, total)
        if level > borrowing:
            borrowing = level
        free = available(node, cell)
        if total <= free:
            continue
        if not _may_preempt(ctx, total, node.subtree_quota.get(cell, 0), in_subtree):

            def problem(resource=resource, short=total - free) -> str:
                return f"insufficient unused quota for {resource} in flavor {name}, {_fmt(short)} more needed"

            return _Option(name, NO_FIT, 0, {}, (), problem)
        mode = PREEMPT
    return _Option(
        name,
        mode,
        borrowing,
        choice.cells,
        choice.cells_key,
        "",
        choice.no_victims,
        assignment=choice.assignment,
    )


def _may_preempt(ctx: _Context, total: int, quota: int, in_subtree: bool) -> bool:
    """Kueue only tries preemption when the request alone fits the nominal quota,
    when a Cohort below the root has room for it (reclaim by hierarchy), or when
    the policy allows preempting while borrowing. It asks even when the queue may
    preempt nobody: the head then needs preemption without victims, and holds its
    quota for the rest of the cycle (``scheduler._reserve``)."""
    if total <= quota or in_subtree:
        return True
    policy = ctx.cq.preemption
    if policy.borrow_within_cohort != m.NEVER:
        return True
    return ctx.fair_sharing and policy.reclaim_within_cohort != m.NEVER


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


def _text(text: Text) -> str:
    return text() if callable(text) else text


def _fmt(milli: int) -> str:
    return f"{milli // 1000}" if milli % 1000 == 0 else f"{milli}m"
