"""The live views' answers for one viewer: the cached snapshot, computed and scoped.

Pages and the API call these two functions and render what they return; nothing here
writes. A cluster that does not answer gives ``state: "unreachable"`` (with the last
snapshot, if any), never an exception.
"""

from __future__ import annotations

from django.conf import settings
from django.http import Http404
from django.utils.dateparse import parse_datetime

from apps.live import charts, compute, domains, fetch, story
from apps.live.recorded_preemptions import recorded_preemptions, recorded_workloads
from apps.queues.models import ResourceFlavor, TeamNamespace
from apps.reports.loading import inference_tiers
from core.dates import iso_z
from core.kube import KubeError
from core.permissions import is_admin


def viewer_namespaces(user) -> set[str] | None:
    """Namespaces whose workloads ``user`` sees by name; None: all (platform admins)."""
    if is_admin(user):
        return None
    return set(TeamNamespace.objects.workloads_visible_to(user).values_list("name", flat=True))


def _state(taken: fetch.Snapshot) -> dict:
    return {
        "state": "ok" if taken.reachable else "unreachable",
        # Kept to the microsecond in the cache (it tells snapshots apart); shown as the API's.
        "fetched_at": iso_z(parse_datetime(taken.fetched_at)) if taken.fetched_at else None,
        "unreachable_since": iso_z(parse_datetime(taken.unreachable_since))
        if taken.unreachable_since
        else None,
        "detail": taken.detail,
    }


# Every queue row of the snapshot this process computed last: one computation per snapshot
# and process, not per request. Rows are never modified (``visible_rows`` copies).
_computed: dict[str, tuple[str, list[dict]]] = {}


def _all_rows(taken: fetch.Snapshot) -> list[dict]:
    where = settings.KUBECONFIG
    stamp, rows = _computed.get(where, ("", []))
    if not taken.fetched_at or stamp != taken.fetched_at:
        rows = compute.queue_rows(
            taken.cluster_queues,
            taken.local_queues,
            taken.workloads,
            taken.positions,
            inference_tiers(),
        )
        rows = compute.with_local_namespaces(rows, taken.local_queues)
        rows = [
            {
                **row,
                "chart": charts.queue_bars(row),
                "resource_charts": charts.other_resource_bars(row),
            }
            for row in rows
        ]
        _computed[where] = (taken.fetched_at, rows)
    return rows


def live_queues(user) -> dict:
    """Every queue the viewer submits to (admins: all), with quota use and workloads now,
    and the topology flavors' free GPUs per domain."""
    taken = fetch.snapshot()
    namespaces = viewer_namespaces(user)
    rows = compute.visible_rows(_all_rows(taken), namespaces)
    return {**_state(taken), "queues": rows, "topology": topology(taken, namespaces)}


def topology_flavors() -> list[domains.TopologyFlavor]:
    """The flavors with topology levels, as the admin named the levels."""
    return [
        domains.TopologyFlavor(
            name=f.name,
            node_labels=dict(f.node_labels),
            levels=tuple((lv["name"], lv["node_label"]) for lv in f.topology_levels),
        )
        for f in ResourceFlavor.objects.exclude(topology_levels=[])
    ]


def topology(taken: fetch.Snapshot, namespaces: set[str] | None) -> dict:
    """Free GPUs per domain of every topology flavor (capacity is public, like quota), and
    the viewer's waiting workloads that need one domain of a level to clear."""
    flavors = topology_flavors()
    if not flavors:
        return {"flavors": [], "waiting": []}
    rows = _domain_rows(taken, flavors)
    lq_to_cq = compute.local_queue_index(taken.local_queues)
    waiting = [
        {"workload": w, "cluster_queue": compute.cluster_queue_of(w, lq_to_cq)}
        for w in taken.workloads
        if compute.workload_state(w) == compute.PENDING
        and (namespaces is None or (w.get("metadata") or {}).get("namespace") in namespaces)
    ]
    queue_flavors = {
        cq["metadata"].get("name", ""): _flavor_names(cq) for cq in taken.cluster_queues
    }
    return {"flavors": rows, "waiting": domains.waiting_for_domain(waiting, queue_flavors, rows)}


# The domains of the snapshot (and flavors) this process computed last, as for queue rows.
_computed_domains: dict[str, tuple[tuple, list[dict]]] = {}


def _domain_rows(taken: fetch.Snapshot, flavors: list[domains.TopologyFlavor]) -> list[dict]:
    stamp = (taken.fetched_at, tuple(flavors))
    kept_stamp, rows = _computed_domains.get(settings.KUBECONFIG, ((), []))
    if not taken.fetched_at or kept_stamp != stamp:
        rows = [
            {**row, "levels": [{**lv, "chart": charts.domain_bars(lv)} for lv in row["levels"]]}
            for row in domains.flavor_rows(flavors, taken.nodes, taken.pods)
        ]
        _computed_domains[settings.KUBECONFIG] = (stamp, rows)
    return rows


def _flavor_names(cluster_queue: dict) -> list[str]:
    groups = (cluster_queue.get("spec") or {}).get("resourceGroups") or ()
    return [f.get("name", "") for g in groups for f in g.get("flavors") or ()]


def workload_detail(user, namespace: str, name: str) -> dict:
    """One Workload's page; 404 outside the viewer's namespaces, as for a missing one."""
    namespaces = viewer_namespaces(user)
    if namespaces is not None and namespace not in namespaces:
        raise Http404("no such workload")
    taken = fetch.snapshot()
    try:
        found = fetch.workload(namespace, name, taken)
        events = fetch.workload_events(namespace, name) if found else []
        preempted_events = fetch.preemption_events() if found else []
    except KubeError as exc:
        return {**_state(taken), "state": "unreachable", "detail": exc.describe(), "workload": None}
    if found is None:
        if taken.reachable:
            raise Http404("no such workload")
        return {**_state(taken), "workload": None}
    # The recorder's history keeps preemptions past the Events' hour and names preemptors
    # that are gone.
    of, by = recorded_preemptions(found["metadata"].get("uid", ""))
    named = story.named_preemptors(found, events + of)
    page = story.workload_page(
        found,
        events=events + of,
        workloads=taken.workloads,
        local_queues=taken.local_queues,
        preempted_events=preempted_events + by,
        namespaces=namespaces,
        known=recorded_workloads(named),
    )
    return {**_state(taken), "workload": page}
