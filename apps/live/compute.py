"""What the live queue view shows, as pure functions over the cluster's own objects.

Inputs are plain dicts as ``live.fetch`` read them (ClusterQueues, LocalQueues,
Workloads, the visibility API's pending positions); outputs are JSON-safe dicts the
page, its script and the API all render. Nothing here reads the database or the cluster.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from decimal import Decimal

from apps.queues.quantity import format_amount, observed_units
from apps.reports.compute.classes import workload_class
from informer import objects as o
from informer import workload as wl
from informer.objects import condition
from kueuemodel import quantity_value

ZERO = Decimal(0)
UNREADABLE = "unreadable"  # a limit that is set but cannot be read (not "no limit")
Cell = tuple[str, str]  # (flavor, resource)


def _q(value, where: str) -> Decimal | None:
    """The quantity at ``where`` (object and field); None (logged and counted) if unreadable."""
    return observed_units(value, where=where, reader="live")


_meta, _status = o.meta, o.status


# ----- quota per ClusterQueue × flavor × resource ------------------------------------


@dataclass(frozen=True)
class QuotaCell:
    """One ClusterQueue's quota and use of one (flavor, resource), as Kueue reports it."""

    queue: str
    cohort: str
    flavor: str
    resource: str
    nominal: Decimal
    lending_limit: Decimal | None
    in_use: Decimal
    borrowed: Decimal
    borrowing_limit: Decimal | None = None  # None: no limit

    @property
    def lendable(self) -> Decimal:
        """What this queue puts into its cohort's pool (all of nominal without a limit)."""
        if not self.cohort:
            return ZERO
        return self.nominal if self.lending_limit is None else min(self.lending_limit, self.nominal)

    @property
    def idle_lendable(self) -> Decimal:
        """Lendable quota this queue does not use itself.

        Kueue charges a queue's use to its private part (nominal − lendable) first and
        only the rest to the pool, so that rest is what it takes of its own lendable part.
        """
        private = self.nominal - self.lendable
        own_pool_use = min(self.lendable, max(self.in_use - private, ZERO))
        return self.lendable - own_pool_use


def lent(cells: list[QuotaCell]) -> dict[tuple[str, str, str], Decimal]:
    """(queue, flavor, resource) → what others in its cohort borrow of its quota now.

    Kueue reports what each queue borrows, not from whom. Within one cohort and one
    (flavor, resource), the total borrowed is spread over the members in proportion to
    their idle lendable quota, and no member lends more than it has idle (borrowing beyond
    that comes from the cohort's own pool or a parent cohort). So the members' ``lent``
    add up to what the others borrow, as far as their idle quota covers it.
    """
    groups: dict[tuple[str, str, str], list[QuotaCell]] = defaultdict(list)
    for cell in cells:
        if cell.cohort:
            groups[(cell.cohort, cell.flavor, cell.resource)].append(cell)
    result = {(c.queue, c.flavor, c.resource): ZERO for c in cells}
    for members in groups.values():
        borrowed = sum((c.borrowed for c in members), ZERO)
        idle = sum((c.idle_lendable for c in members), ZERO)
        if borrowed <= 0 or idle <= 0:
            continue
        share = min(Decimal(1), borrowed / idle)
        for c in members:
            result[(c.queue, c.flavor, c.resource)] = c.idle_lendable * share
    return result


def quota_cells(cluster_queue: dict) -> list[QuotaCell]:
    """Every (flavor, resource) of a ClusterQueue with its quota and reserved use.

    Use is ``status.flavorsReservation`` (quota held by workloads with QuotaReserved, what
    admission counts), falling back to ``flavorsUsage`` for a Kueue that omits it. A cell
    with a quantity that cannot be read is left out (logged and counted), not shown as 0.
    """
    spec, status = cluster_queue.get("spec") or {}, _status(cluster_queue)
    use: dict[Cell, tuple[Decimal | None, Decimal | None]] = {}
    for flavor in status.get("flavorsReservation") or status.get("flavorsUsage") or ():
        for res in flavor.get("resources") or ():
            key = (flavor.get("name", ""), res.get("name", ""))
            where = f"ClusterQueue {_meta(cluster_queue).get('name', '')} usage {key[0]}/{key[1]}"
            use[key] = (
                _q(res.get("total"), f"{where} total"),
                _q(res.get("borrowed"), f"{where} borrowed"),
            )
    cells = []
    for group in spec.get("resourceGroups") or ():
        for flavor in group.get("flavors") or ():
            for res in flavor.get("resources") or ():
                key = (flavor.get("name", ""), res.get("name", ""))
                cell = _cell(cluster_queue, key, res, use.get(key, (ZERO, ZERO)))
                if cell is not None:
                    cells.append(cell)
    return cells


def _cell(cq: dict, key: Cell, res: dict, use: tuple) -> QuotaCell | None:
    where = f"ClusterQueue {_meta(cq).get('name', '')} spec {key[0]}/{key[1]}"
    nominal = _q(res.get("nominalQuota"), f"{where} nominalQuota")
    lending = _limit(res, "lendingLimit", where)
    borrowing = _limit(res, "borrowingLimit", where)
    if None in (nominal, *use) or UNREADABLE in (lending, borrowing):
        return None
    spec = cq.get("spec") or {}
    return QuotaCell(
        queue=_meta(cq).get("name", ""),
        cohort=spec.get("cohortName") or spec.get("cohort") or "",
        flavor=key[0],
        resource=key[1],
        nominal=nominal,
        lending_limit=lending,
        in_use=use[0],
        borrowed=use[1],
        borrowing_limit=borrowing,
    )


def _limit(res: dict, name: str, where: str) -> Decimal | str | None:
    """The limit ``name`` (None: not set); ``UNREADABLE`` when it is set but unreadable."""
    value = res.get(name)
    if value in (None, ""):
        return None
    amount = _q(value, f"{where} {name}")
    return UNREADABLE if amount is None else amount


def usable(cells: list[QuotaCell]) -> list[QuotaCell]:
    """The cells some queue can use: nominal quota, use now, or borrowing that is possible.

    Borrowing is possible for a queue in a cohort whose borrowing limit is not 0 when
    another queue in a cohort lends some of that flavor × resource. The snapshot does not
    carry the cohort tree, so a lender in any cohort counts: a row is hidden only when
    nothing could ever be admitted on it.
    """
    lenders: dict[Cell, set[str]] = defaultdict(set)
    for c in cells:
        if c.lendable > 0:
            lenders[(c.flavor, c.resource)].add(c.queue)
    return [c for c in cells if c.nominal > 0 or c.in_use > 0 or _may_borrow(c, lenders)]


def _may_borrow(cell: QuotaCell, lenders: dict[Cell, set[str]]) -> bool:
    if not cell.cohort or cell.borrowing_limit == 0:
        return False
    return bool(lenders.get((cell.flavor, cell.resource), set()) - {cell.queue})


# ----- workloads ---------------------------------------------------------------------

# The states rows show are the Workload module's (informer.workload decides them).
ADMITTED, PENDING = wl.State.ADMITTED, wl.State.PENDING
EVICTED, FINISHED = wl.State.EVICTED, wl.State.FINISHED
workload_state = wl.state


def cluster_queue_of(workload: dict, lq_to_cq: dict[tuple[str, str], str]) -> str:
    """The admitting ClusterQueue, else the one behind its LocalQueue."""
    if admitting := o.cluster_queue(workload):
        return admitting
    return lq_to_cq.get((_meta(workload).get("namespace", ""), o.queue_name(workload)), "")


def local_queue_index(local_queues: list[dict]) -> dict[tuple[str, str], str]:
    return {
        (_meta(lq).get("namespace", ""), _meta(lq).get("name", "")): (lq.get("spec") or {}).get(
            "clusterQueue", ""
        )
        for lq in local_queues
    }


def requests(workload: dict) -> dict[str, Decimal]:
    """Resource → total requested over all pods of all podSets (containers summed)."""
    total: dict[str, Decimal] = defaultdict(lambda: ZERO)
    where = f"{_meta(workload).get('namespace', '')}/{_meta(workload).get('name', '')}"
    for pod_set in (workload.get("spec") or {}).get("podSets") or ():
        count = int(pod_set.get("count", 1) or 0)
        pod_spec = (pod_set.get("template") or {}).get("spec") or {}
        for container in pod_spec.get("containers") or ():
            asked = (container.get("resources") or {}).get("requests") or {}
            for name, value in asked.items():
                amount = _q(value, f"Workload {where} {pod_set.get('name', '')} {name}")
                if amount is not None:  # unreadable: left out (logged and counted)
                    total[name] += amount * count
    return dict(total)


def flavors_by_pod_set(workload: dict) -> list[dict]:
    """Kueue's admission: per podSet, the flavor of each resource and the pod count."""
    return [
        {
            "pod_set": a.get("name", ""),
            "count": a.get("count"),
            "flavors": dict(sorted((a.get("flavors") or {}).items())),
        }
        for a in o.pod_set_assignments(workload)
    ]


def workload_row(
    workload: dict, cq: str, position: int | None, inference_tiers: frozenset[str] = frozenset()
) -> dict:
    meta, spec = _meta(workload), workload.get("spec") or {}
    kind = workload_class(
        tier=o.priority_class(workload),
        notebook=o.owner(workload)[0] == "StatefulSet",
        inference_tiers=inference_tiers,
    )
    state = workload_state(workload)
    waiting = wl.pending(workload) if state == PENDING else None
    return {
        "namespace": meta.get("namespace", ""),
        "name": meta.get("name", ""),
        "uid": meta.get("uid", ""),
        "created": meta.get("creationTimestamp", ""),
        "local_queue": spec.get("queueName", ""),
        "cluster_queue": cq,
        "priority": spec.get("priority") or 0,
        "class": kind,
        "state": state,
        "position": position if state == PENDING else None,
        "waiting_reason": waiting.message if waiting else "",
        "requests": {k: format_amount(k, v) for k, v in sorted(requests(workload).items())},
        "flavors": flavors_by_pod_set(workload),
    }


def pending_order(workloads: list[dict]) -> list[dict]:
    """Kueue's queue order when the visibility API is not there: priority, then age."""
    return sorted(
        workloads,
        key=lambda w: (
            -((w.get("spec") or {}).get("priority") or 0),
            _meta(w).get("creationTimestamp", ""),
        ),
    )


def positions(pending: list[dict], reported: dict[str, int] | None) -> dict[str, int]:
    """``namespace/name`` → position in its ClusterQueue, 1-based (1 is admitted next).

    The visibility API's answer when there is one (``fetch`` makes it 1-based); otherwise
    the pending order.
    """
    if reported is not None:
        return reported
    return {key(w): i for i, w in enumerate(pending_order(pending), start=1)}


def key(workload: dict) -> str:
    return f"{_meta(workload).get('namespace', '')}/{_meta(workload).get('name', '')}"


# ----- the whole view ------------------------------------------------------------


def queue_rows(
    cluster_queues: list[dict],
    local_queues: list[dict],
    workloads: list[dict],
    reported_positions: dict[str, dict[str, int] | None],
    inference_tiers: frozenset[str] = frozenset(),
) -> list[dict]:
    """Every ClusterQueue: quota per usable flavor × resource, counters and its workloads,
    each with its class (interactive, inference, batch: ``inference_tiers`` says which
    tiers are inference's).

    ``reported_positions`` maps a ClusterQueue to the visibility API's positions (None
    where that API did not answer). Finished workloads are left out.
    """
    cells = [c for cq in cluster_queues for c in quota_cells(cq)]
    lent_now = lent(cells)
    cells = usable(cells)
    lq_to_cq = local_queue_index(local_queues)
    by_cq: dict[str, list[dict]] = defaultdict(list)
    for w in workloads:
        if workload_state(w) != FINISHED:
            by_cq[cluster_queue_of(w, lq_to_cq)].append(w)
    rows = []
    for cq in sorted(cluster_queues, key=lambda c: _meta(c).get("name", "")):
        name = _meta(cq).get("name", "")
        mine = by_cq.get(name, [])
        waiting = [w for w in mine if workload_state(w) == PENDING]
        where = positions(waiting, reported_positions.get(name))
        listed = [workload_row(w, name, where.get(key(w)), inference_tiers) for w in mine]
        rows.append(_queue_row(cq, [c for c in cells if c.queue == name], lent_now, listed))
    return rows


def _queue_row(cq: dict, cells: list[QuotaCell], lent_now: dict, listed: list[dict]) -> dict:
    status = _status(cq)
    active = condition(cq, "Active") or {}
    waiting = sorted(
        (w for w in listed if w["state"] == PENDING),
        key=lambda w: (w["position"] is None, w["position"] or 0, w["created"]),
    )
    pending_demand: dict[str, Decimal] = defaultdict(lambda: ZERO)
    for w in waiting:
        for resource, amount in w["requests"].items():
            pending_demand[resource] += quantity_value(amount)  # our own format_amount text
    return {
        "name": _meta(cq).get("name", ""),
        "cohort": cells[0].cohort if cells else ((cq.get("spec") or {}).get("cohortName") or ""),
        "active": active.get("status", "Unknown") == "True",
        "active_reason": "" if active.get("status") == "True" else active.get("message", ""),
        "pending_workloads": int(status.get("pendingWorkloads") or 0),
        "reserving_workloads": int(status.get("reservingWorkloads") or 0),
        "admitted_workloads": int(status.get("admittedWorkloads") or 0),
        "flavors": [_cell_row(c, lent_now) for c in cells],
        "pending_requests": {k: format_amount(k, v) for k, v in sorted(pending_demand.items())},
        "admitted": sorted(
            (w for w in listed if w["state"] != PENDING), key=lambda w: (w["created"], w["name"])
        ),
        "waiting": waiting,
    }


def _cell_row(cell: QuotaCell, lent_now: dict) -> dict:
    lent_amount = lent_now.get((cell.queue, cell.flavor, cell.resource), ZERO)
    return {
        "flavor": cell.flavor,
        "resource": cell.resource,
        "nominal": format_amount(cell.resource, cell.nominal),
        "in_use": format_amount(cell.resource, cell.in_use),
        "borrowed": format_amount(cell.resource, cell.borrowed),
        "lent": format_amount(cell.resource, lent_amount.quantize(Decimal("0.01")).normalize()),
    }


def visible_rows(rows: list[dict], namespaces: set[str] | None) -> list[dict]:
    """The queues a viewer may see, with only the workloads of their namespaces.

    ``namespaces`` None means everything (platform admins). A queue is shown when it has
    a LocalQueue in one of the viewer's namespaces (``rows`` carry ``local_namespaces``).
    """
    if namespaces is None:
        return rows
    shown = []
    for row in rows:
        if not namespaces & set(row["local_namespaces"]):
            continue
        shown.append(
            {
                **row,
                "admitted": [w for w in row["admitted"] if w["namespace"] in namespaces],
                "waiting": [w for w in row["waiting"] if w["namespace"] in namespaces],
            }
        )
    return shown


def with_local_namespaces(rows: list[dict], local_queues: list[dict]) -> list[dict]:
    """Add to each queue row the namespaces whose LocalQueues point at it."""
    where: dict[str, set[str]] = defaultdict(set)
    for (namespace, _name), cq in local_queue_index(local_queues).items():
        where[cq].add(namespace)
    return [{**row, "local_namespaces": sorted(where.get(row["name"], ()))} for row in rows]
