"""Brownfield import: read an existing cluster's Kueue objects into portal policy.

``translate`` is pure: observed objects in, an ``ImportPlan`` out (what to create
through the services, plus notes on what the portal cannot represent).
``services.cluster_import.import_policy`` writes it, so every row is validated and audited.
A quantity or priority value the portal cannot read refuses the whole import
(``InvalidInput`` naming each object and field) before anything is written: read
as 0, a quota would silently vanish and a flavor's capacity shrink.
With ``take_ownership`` the imported objects then get our managed-by label;
without it the reconciler keeps reporting them as ``blocked`` and never writes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from apps.queues import kueue
from apps.queues.quantity import QuantityError, format_units, parse_units
from apps.queues.reconcile.observe import ref
from apps.queues.reconcile.plan import Change as FieldChange
from apps.queues.reconcile.plan import Key, merge_patch
from core.errors import InvalidInput
from core.kube import KubeClient
from core.namespaces import matches


@dataclass
class ImportPlan:
    flavors: list[dict] = field(default_factory=list)
    cohorts: list[dict] = field(default_factory=list)
    tiers: list[dict] = field(default_factory=list)
    teams: list[dict] = field(default_factory=list)
    queues: list[dict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    keys: list[Key] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {
            "flavors": [f["name"] for f in self.flavors],
            "cohorts": [c["name"] for c in self.cohorts],
            "priority_tiers": [t["name"] for t in self.tiers],
            "teams": [t["slug"] for t in self.teams],
            "queues": [q["name"] for q in self.queues],
            "not_represented": self.notes,
        }


def read_cluster(client: KubeClient, version: str) -> dict[str, list[dict]]:
    kinds = (kueue.RESOURCE_FLAVOR, kueue.COHORT, kueue.WORKLOAD_PRIORITY_CLASS)
    kinds += (kueue.CLUSTER_QUEUE, kueue.LOCAL_QUEUE)
    return {kind: client.list(ref(kind, version)) for kind in kinds}


def translate(
    cluster: dict[str, list[dict]],
    *,
    known: dict[str, set[str]],
    namespace_teams: dict[str, str],
    protected: tuple[str, ...] = (),
) -> ImportPlan:
    """What to import. ``known`` names what the portal already has (kept as is);
    ``namespace_teams`` maps namespaces that already belong to a team; LocalQueues in
    ``protected`` namespaces (patterns) are left out: no team gets such a namespace.
    Raises ``InvalidInput`` naming every unreadable value (see ``unreadable_values``)."""
    errors = unreadable_values(cluster)
    if errors:
        raise InvalidInput(errors)
    result = ImportPlan()
    queues = cluster[kueue.CLUSTER_QUEUE]
    _flavors(result, cluster[kueue.RESOURCE_FLAVOR], queues, known["flavors"])
    _cohorts(result, cluster[kueue.COHORT], queues, known["cohorts"])
    _tiers(result, cluster[kueue.WORKLOAD_PRIORITY_CLASS], known["tiers"])
    allowed = [lq for lq in cluster[kueue.LOCAL_QUEUE] if not _in_protected(result, lq, protected)]
    locals_by_cq = _local_queues(result, allowed)
    for cq in queues:
        if cq["metadata"]["name"] in known["queues"]:
            continue
        _queue(result, cq, locals_by_cq.get(cq["metadata"]["name"], []), namespace_teams)
    return result


QUANTITY_EXAMPLE = 'e.g. "12", "500m" or "64Gi"'
PRIORITY_RULE = "must be a whole number such as 1000"


def unreadable_values(cluster: dict[str, list[dict]]) -> dict[str, list[str]]:
    """Every quantity and priority value the import would read, keyed by
    ``<Kind> <name> <field path>``, mapped to the rule it breaks; empty if all read."""
    errors: dict[str, list[str]] = {}
    for obj in cluster[kueue.CLUSTER_QUEUE] + cluster[kueue.COHORT]:
        for path, value in _quantity_fields(obj.get("spec") or {}):
            try:
                parse_units(str(value))
            except QuantityError as exc:
                errors[_where(obj, path)] = [f"{value!r} {exc} ({QUANTITY_EXAMPLE})"]
    for wpc in cluster[kueue.WORKLOAD_PRIORITY_CLASS]:
        value = wpc.get("value", 0)
        if isinstance(value, bool) or not isinstance(value, int):
            errors[_where(wpc, "value")] = [f"{value!r} {PRIORITY_RULE}"]
    return errors


def _quantity_fields(spec: dict):
    """(field path, value) of every quantity in a ClusterQueue's or Cohort's spec."""
    weight = (spec.get("fairSharing") or {}).get("weight")
    if weight is not None:
        yield "spec.fairSharing.weight", weight
    for g, group in enumerate(spec.get("resourceGroups") or []):
        for f, flavor in enumerate(group.get("flavors") or []):
            for r, res in enumerate(flavor.get("resources") or []):
                where = f"spec.resourceGroups[{g}].flavors[{f}].resources[{r}]"
                for key in ("nominalQuota", "borrowingLimit", "lendingLimit"):
                    if res.get(key) is not None:
                        yield f"{where}.{key}", res[key]


def _where(obj: dict, path: str) -> str:
    return f"{obj['kind']} {obj['metadata']['name']} {path}"


def _in_protected(result: ImportPlan, lq: dict, protected: tuple[str, ...]) -> bool:
    namespace = lq["metadata"]["namespace"]
    if not matches(namespace, protected):
        return False
    result.notes.append(
        f"LocalQueue {namespace}/{lq['metadata']['name']}: {namespace} is a protected system "
        "namespace (QM_PROTECTED_NAMESPACES); not imported, left alone"
    )
    return True


def _note(result: ImportPlan, obj: dict, message: str) -> None:
    result.notes.append(f"{obj['kind']} {obj['metadata']['name']}: {message}")


def _flavor_totals(queues: list[dict]) -> dict[str, dict[str, Decimal]]:
    """Σ nominal per flavor and resource: the capacity we assume (Kueue has none)."""
    totals: dict[str, dict[str, Decimal]] = {}
    for cq in queues:
        for group in cq.get("spec", {}).get("resourceGroups") or []:
            for flavor in group.get("flavors") or []:
                per = totals.setdefault(flavor["name"], {})
                for res in flavor.get("resources") or []:
                    per[res["name"]] = per.get(res["name"], Decimal(0)) + _units(
                        res["nominalQuota"]
                    )
    return totals


def _units(value) -> Decimal:
    # Read after unreadable_values passed: never a QuantityError here.
    return parse_units(str(value))


def _flavors(result: ImportPlan, flavors: list[dict], queues: list[dict], known: set[str]):
    totals = _flavor_totals(queues)
    for rf in flavors:
        name, spec = rf["metadata"]["name"], rf.get("spec") or {}
        if name in known:
            continue
        capacity = {r: format_units(v) for r, v in (totals.get(name) or {}).items()}
        if not capacity:
            capacity = {"nvidia.com/gpu": "0"}
            _note(result, rf, "no queue uses it; imported with a placeholder capacity of 0 GPUs")
        if spec.get("topologyName"):
            _note(result, rf, "topologyName (TAS) is not managed by the portal")
        result.flavors.append(
            {
                "name": name,
                "capacity": capacity,
                "node_labels": spec.get("nodeLabels") or {},
                "node_taints": spec.get("nodeTaints") or [],
                "tolerations": spec.get("tolerations") or [],
            }
        )
        result.keys.append(kueue.object_key(rf))


def _cohorts(result: ImportPlan, cohorts: list[dict], queues: list[dict], known: set[str]):
    by_name = {c["metadata"]["name"]: c for c in cohorts}
    implicit = {cohort_of(cq) for cq in queues} - set(by_name) - {None}
    for name in sorted(implicit):
        by_name[name] = {"kind": kueue.COHORT, "metadata": {"name": name}, "spec": {}}
    for name in _parents_first(by_name):
        cohort, spec = by_name[name], by_name[name].get("spec") or {}
        if name in known:
            continue
        if spec.get("resourceGroups"):
            _note(result, cohort, "cohort quota pools (resourceGroups) are not represented")
        result.cohorts.append(
            {
                "name": name,
                "parent": spec.get("parentName"),
                "fair_weight": str((spec.get("fairSharing") or {}).get("weight", "1")),
            }
        )
        if "uid" in cohort["metadata"]:
            result.keys.append(kueue.object_key(cohort))


def cohort_of(cq: dict) -> str | None:
    """The cohort a ClusterQueue manifest joins (``cohortName`` from v1beta2 on)."""
    spec = cq.get("spec") or {}
    return spec.get("cohortName") or spec.get("cohort")


def _parents_first(by_name: dict[str, dict]) -> list[str]:
    ordered: list[str] = []

    def visit(name: str, seen: frozenset) -> None:
        parent = (by_name.get(name, {}).get("spec") or {}).get("parentName")
        if parent in by_name and parent not in seen:
            visit(parent, seen | {name})
        if name not in ordered:
            ordered.append(name)

    for name in sorted(by_name):
        visit(name, frozenset())
    return ordered


def _tiers(result: ImportPlan, classes: list[dict], known: set[str]) -> None:
    for wpc in classes:
        if wpc["metadata"]["name"] in known:
            continue
        result.tiers.append(
            {
                "name": wpc["metadata"]["name"],
                "value": int(wpc.get("value", 0)),
                "description": wpc.get("description", ""),
            }
        )
        result.keys.append(kueue.object_key(wpc))


def _local_queues(result: ImportPlan, local_queues: list[dict]) -> dict[str, list[dict]]:
    by_cq: dict[str, list[dict]] = {}
    for lq in local_queues:
        cq = (lq.get("spec") or {}).get("clusterQueue", "")
        by_cq.setdefault(cq, []).append(lq)
        if lq["metadata"]["name"] != cq:
            where = f"{lq['metadata']['namespace']}/{lq['metadata']['name']}"
            result.notes.append(
                f"LocalQueue {where}: the portal names LocalQueues after their ClusterQueue; "
                f"a LocalQueue {cq!r} is created next to it and this one is left alone"
            )
        else:
            result.keys.append(kueue.object_key(lq))
    return by_cq


def _queue(result: ImportPlan, cq: dict, local: list[dict], namespace_teams: dict[str, str]):
    name, spec = cq["metadata"]["name"], cq.get("spec") or {}
    team = _team_for(
        result, name, sorted({lq["metadata"]["namespace"] for lq in local}), namespace_teams
    )
    _unrepresented(result, cq, spec)
    preemption = spec.get("preemption") or {}
    borrow = preemption.get("borrowWithinCohort") or {}
    result.queues.append(
        {
            "name": name,
            "team": team,
            "cohort": cohort_of(cq),
            "fair_weight": str((spec.get("fairSharing") or {}).get("weight", "1")),
            "queueing_strategy": spec.get("queueingStrategy", "BestEffortFIFO"),
            "stop_policy": spec.get("stopPolicy", "None"),
            "preemption": {
                "reclaim_within_cohort": preemption.get("reclaimWithinCohort", "Never"),
                "within_cluster_queue": preemption.get("withinClusterQueue", "Never"),
                "borrow_within_cohort": borrow.get("policy", "Never"),
                "borrow_max_priority_threshold": borrow.get("maxPriorityThreshold"),
            },
            "quotas": cluster_queue_quotas(spec.get("resourceGroups") or []),
        }
    )
    result.keys.append(kueue.object_key(cq))


def _team_for(result: ImportPlan, queue: str, namespaces: list[str], known: dict[str, str]):
    """The one team whose namespaces hold the queue's LocalQueues; None = shared."""
    teams = {known[ns] for ns in namespaces if ns in known}
    new = [ns for ns in namespaces if ns not in known]
    if len(teams) == 1 and not new:
        return teams.pop()
    if teams or not new:
        return None
    result.teams.append({"slug": queue, "namespaces": new})
    return queue


def cluster_queue_quotas(groups: list[dict]) -> list[dict]:
    """A ClusterQueue's ``resourceGroups`` as quota snapshots (``apps.queues.snapshots``)."""
    quotas = []
    for group in groups:
        for flavor in group.get("flavors") or []:
            for res in flavor.get("resources") or []:
                if _units(res.get("nominalQuota", 0)) == 0 and not res.get("borrowingLimit"):
                    continue  # the "0" filler Kueue needs for every covered resource
                quotas.append(
                    {
                        "flavor": flavor["name"],
                        "resource": res["name"],
                        "nominal": str(res.get("nominalQuota", "0")),
                        "borrowing_limit": _str_or_none(res.get("borrowingLimit")),
                        "lending_limit": _str_or_none(res.get("lendingLimit")),
                    }
                )
    return quotas


def _str_or_none(value) -> str | None:
    return None if value is None else str(value)


def _unrepresented(result: ImportPlan, cq: dict, spec: dict) -> None:
    if len(spec.get("resourceGroups") or []) > 1:
        _note(
            result,
            cq,
            "several resource groups are merged into one (every flavor lists every resource)",
        )
    if spec.get("admissionChecks") or spec.get("admissionChecksStrategy"):
        _note(result, cq, "admission checks are not represented (left on the object, unmanaged)")
    if spec.get("flavorFungibility") not in (None, {}, _default_fungibility()):
        _note(result, cq, "flavorFungibility is not managed by the portal (left as is)")
    if spec.get("admissionScope"):
        _note(result, cq, "admissionScope is not managed by the portal (left as is)")
    _note(result, cq, "namespaceSelector is replaced by the portal's team label selector")


def _default_fungibility() -> dict:
    return {"whenCanBorrow": "MayStopSearch", "whenCanPreempt": "TryNextFlavor"}


def take_ownership(client: KubeClient, version: str, keys: list[Key]) -> None:
    """Put our managed-by label on the imported objects (nothing else changes)."""
    label = FieldChange(("metadata", "labels", kueue.MANAGED_BY), None, kueue.MANAGER)
    for kind, namespace, name in keys:
        client.patch(ref(kind, version), name, merge_patch((label,), None), namespace)
