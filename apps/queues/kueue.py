"""Kueue manifests as pure functions: policy state in, plain dicts out.

Nothing here touches the database or the cluster. ``PolicyState`` is a plain
description of the policy (built by ``apps.queues.reconcile.desired`` from the
rows, or from a proposed snapshot for previews); ``render_all`` turns it into
every object the portal owns, in the storage version ``v1beta2``.
``to_api_version`` converts a manifest for clusters spoken to in ``v1beta1``.
Besides Kueue's kinds it renders each team namespace and, when the admin named a
storage class, the namespace's checkpoint volume (a PersistentVolumeClaim).
A queue that is fair between users also gets a LocalQueue per team member
(``apps.queues.user_queues``; docs/fair-sharing-between-users.md).

``OWNED_FIELDS`` lists, per kind, the paths the portal manages. Only these are
compared and patched; everything else on a live object (server defaults,
status, other controllers' fields) is left alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from apps.queues.user_queues import user_label_value, user_local_queue_name

GROUP = "kueue.x-k8s.io"
STORAGE_VERSION = "v1beta2"
MANAGED_BY = "app.kubernetes.io/managed-by"
MANAGER = "quartermaster"
TEAM_LABEL = "quartermaster.io/team"
COST_CENTER_LABEL = "quartermaster.io/cost-center"
USER_LABEL = "quartermaster.io/user"  # on a member's own LocalQueue
OWNED_LABELS = (MANAGED_BY, TEAM_LABEL, COST_CENTER_LABEL, USER_LABEL)
FAIR_BETWEEN_USERS = {"admissionMode": "UsageBasedAdmissionFairSharing"}

NAMESPACE = "Namespace"
PERSISTENT_VOLUME_CLAIM = "PersistentVolumeClaim"
TOPOLOGY = "Topology"
RESOURCE_FLAVOR = "ResourceFlavor"
COHORT = "Cohort"
WORKLOAD_PRIORITY_CLASS = "WorkloadPriorityClass"
CLUSTER_QUEUE = "ClusterQueue"
LOCAL_QUEUE = "LocalQueue"
# Creation order: what others refer to comes first. Deletion runs in reverse.
KINDS = (
    NAMESPACE,
    PERSISTENT_VOLUME_CLAIM,
    TOPOLOGY,
    RESOURCE_FLAVOR,
    COHORT,
    WORKLOAD_PRIORITY_CLASS,
    CLUSTER_QUEUE,
    LOCAL_QUEUE,
)
# The claim every team namespace gets for checkpoints; batch pods mount it (apps.jobs).
CHECKPOINT_CLAIM = "quartermaster-checkpoints"

# Top-level paths we own per kind (dotted). Labels are compared key by key.
OWNED_FIELDS: dict[str, tuple[str, ...]] = {
    NAMESPACE: (),
    # A bound claim's class and access modes are immutable, and its size may only
    # grow: a change here reaches the cluster as a patch the API server refuses (422),
    # which the queue page shows, rather than a silent delete and re-create of the data.
    PERSISTENT_VOLUME_CLAIM: (
        "spec.storageClassName",
        "spec.accessModes",
        "spec.resources.requests.storage",
    ),
    # Kueue refuses any change to a Topology's levels, and to a flavor's topologyName,
    # nodeLabels and tolerations once topologyName is set: the plan blocks such changes
    # (``plan.IMMUTABLE``) instead of sending a patch the API server refuses every run.
    TOPOLOGY: ("spec.levels",),
    RESOURCE_FLAVOR: (
        "spec.nodeLabels",
        "spec.nodeTaints",
        "spec.tolerations",
        "spec.topologyName",
    ),
    COHORT: ("spec.parentName", "spec.fairSharing", "spec.resourceGroups"),
    WORKLOAD_PRIORITY_CLASS: ("value", "description"),
    CLUSTER_QUEUE: (
        "spec.resourceGroups",
        "spec.cohortName",
        "spec.namespaceSelector",
        "spec.queueingStrategy",
        "spec.preemption",
        "spec.fairSharing",
        "spec.stopPolicy",
        "spec.admissionScope",
    ),
    LOCAL_QUEUE: ("spec.clusterQueue", "spec.stopPolicy"),
}
# v1beta1 spells a few owned fields differently (see kueue-facts: v1beta1 → v1beta2).
V1BETA1_RENAMES: dict[str, dict[str, str]] = {CLUSTER_QUEUE: {"cohortName": "cohort"}}


@dataclass(frozen=True)
class TeamSpec:
    slug: str
    cost_center: str
    namespaces: tuple[str, ...]
    members: tuple[str, ...] = ()  # usernames, for the per-user LocalQueues


@dataclass(frozen=True)
class CheckpointVolume:
    """What each team namespace's checkpoint claim asks for (``QM_CHECKPOINT_STORAGE_CLASS``,
    ``QM_CHECKPOINT_VOLUME_SIZE``)."""

    storage_class: str
    size: str


@dataclass(frozen=True)
class PolicyState:
    """Everything the manifests depend on, as plain data (see ``desired.load_state``)."""

    flavors: list[dict] = field(default_factory=list)
    cohorts: list[dict] = field(default_factory=list)
    tiers: list[dict] = field(default_factory=list)
    teams: list[TeamSpec] = field(default_factory=list)
    queues: list[dict] = field(default_factory=list)
    checkpoint_volume: CheckpointVolume | None = None  # None: no claims, jobs use emptyDir


def _metadata(name: str, *, namespace: str = "", team: str | None = None) -> dict:
    labels = {MANAGED_BY: MANAGER}
    if team:
        labels[TEAM_LABEL] = team
    meta: dict[str, Any] = {"name": name, "labels": labels}
    if namespace:
        meta["namespace"] = namespace
    return meta


def _kueue(kind: str, metadata: dict, **body: Any) -> dict:
    return {"apiVersion": f"{GROUP}/{STORAGE_VERSION}", "kind": kind, "metadata": metadata, **body}


def _compact(values: dict) -> dict:
    """Drop unset optional fields: absent, not null, is how Kueue spells 'unset'."""
    return {k: v for k, v in values.items() if v not in (None, "", [], {})}


def render_namespace(team: TeamSpec, name: str) -> dict:
    meta = _metadata(name, team=team.slug)
    if team.cost_center:
        # OpenCost aggregates spend by namespace label.
        meta["labels"][COST_CENTER_LABEL] = team.cost_center
    return {"apiVersion": "v1", "kind": NAMESPACE, "metadata": meta}


def render_checkpoint_claim(team: TeamSpec, namespace: str, volume: CheckpointVolume) -> dict:
    """The team's checkpoint volume in ``namespace``: read-write-many, as a gang's pods
    on several nodes write to it at once."""
    return {
        "apiVersion": "v1",
        "kind": PERSISTENT_VOLUME_CLAIM,
        "metadata": _metadata(CHECKPOINT_CLAIM, namespace=namespace, team=team.slug),
        "spec": {
            "storageClassName": volume.storage_class,
            "accessModes": ["ReadWriteMany"],
            "resources": {"requests": {"storage": volume.size}},
        },
    }


def render_flavor(flavor: dict) -> dict:
    """The ResourceFlavor; one with topology levels names its Topology (same name)."""
    spec = _compact(
        {
            "nodeLabels": dict(flavor.get("node_labels") or {}),
            "nodeTaints": list(flavor.get("node_taints") or []),
            "tolerations": list(flavor.get("tolerations") or []),
            "topologyName": flavor["name"] if flavor.get("topology_levels") else None,
        }
    )
    return _kueue(RESOURCE_FLAVOR, _metadata(flavor["name"]), spec=spec)


def render_topology(flavor: dict) -> dict:
    """The flavor's Kueue Topology: its levels' node label keys, widest first."""
    levels = [{"nodeLabel": level["node_label"]} for level in flavor["topology_levels"]]
    return _kueue(TOPOLOGY, _metadata(flavor["name"]), spec={"levels": levels})


def render_cohort(cohort: dict) -> dict:
    spec = _compact(
        {"parentName": cohort.get("parent"), "fairSharing": {"weight": cohort["fair_weight"]}}
    )
    return _kueue(COHORT, _metadata(cohort["name"]), spec=spec)


def render_priority_class(tier: dict) -> dict:
    body = _compact({"value": tier["value"], "description": tier.get("description")})
    body["value"] = tier["value"]  # 0 is a valid priority and must not be compacted away
    return _kueue(WORKLOAD_PRIORITY_CLASS, _metadata(tier["name"]), **body)


def resource_groups(quotas: list[dict]) -> list[dict]:
    """One group covering every resource the queue uses; each flavor lists all of them.

    Kueue requires every flavor of a group to list exactly the covered resources in
    the same order, so a resource a flavor has no quota for gets nominalQuota "0".
    Flavors keep the queue's rank order (Kueue tries them in list order).
    """
    if not quotas:
        return []
    covered = sorted({q["resource"] for q in quotas})
    by_key = {(q["flavor"], q["resource"]): q for q in quotas}
    flavors = list(dict.fromkeys(q["flavor"] for q in quotas))
    return [
        {
            "coveredResources": covered,
            "flavors": [
                {"name": f, "resources": [_quota(r, by_key.get((f, r))) for r in covered]}
                for f in flavors
            ],
        }
    ]


def _quota(resource: str, quota: dict | None) -> dict:
    quota = quota or {}
    return _compact(
        {
            "name": resource,
            "nominalQuota": quota.get("nominal") or "0",
            "borrowingLimit": quota.get("borrowing_limit"),
            "lendingLimit": quota.get("lending_limit"),
        }
    )


def _preemption(preemption: dict) -> dict:
    borrow = {"policy": preemption["borrow_within_cohort"]}
    if preemption.get("borrow_max_priority_threshold") is not None:
        borrow["maxPriorityThreshold"] = preemption["borrow_max_priority_threshold"]
    return {
        "reclaimWithinCohort": preemption["reclaim_within_cohort"],
        "withinClusterQueue": preemption["within_cluster_queue"],
        "borrowWithinCohort": borrow,
    }


def namespace_selector(team: str | None) -> dict:
    """A team queue admits from its team's namespaces; a shared one from every team's."""
    if team:
        return {"matchLabels": {TEAM_LABEL: team}}
    return {"matchExpressions": [{"key": TEAM_LABEL, "operator": "Exists"}]}


def render_cluster_queue(queue: dict) -> dict:
    spec = {
        "resourceGroups": resource_groups(queue["quotas"]),
        "cohortName": queue.get("cohort"),
        "namespaceSelector": namespace_selector(queue.get("team")),
        "queueingStrategy": queue["queueing_strategy"],
        "preemption": _preemption(queue["preemption"]),
        "fairSharing": {"weight": queue["fair_weight"]},
        "stopPolicy": queue["stop_policy"],
        # Orders the LocalQueues pointing here by their recent usage (Kueue's AFS).
        "admissionScope": FAIR_BETWEEN_USERS if queue.get("fair_between_users") else None,
    }
    meta = _metadata(queue["name"], team=queue.get("team"))
    return _kueue(CLUSTER_QUEUE, meta, spec=_compact(spec))


def render_local_queue(queue: dict, namespace: str, *, user: str = "") -> dict:
    """The queue's LocalQueue in ``namespace``, or ``user``'s own one when given."""
    name = user_local_queue_name(queue["name"], user) if user else queue["name"]
    meta = _metadata(name, namespace=namespace, team=queue.get("team"))
    if user:
        meta["labels"][USER_LABEL] = user_label_value(user)
    # stopPolicy is spelled out so a queue we once held is released when desired again.
    spec = {"clusterQueue": queue["name"], "stopPolicy": "None"}
    return _kueue(LOCAL_QUEUE, meta, spec=spec)


def render_local_queues(queue: dict, teams: list[TeamSpec]) -> list[dict]:
    """The queue's LocalQueue in each of its namespaces and, when it is fair between
    users, one per team member there (the team's one stays for notebooks and tools)."""
    team = next((t for t in teams if t.slug == queue.get("team")), None)
    members = team.members if team and queue.get("fair_between_users") else ()
    return [
        render_local_queue(queue, ns, user=user)
        for ns in queue_namespaces(queue, teams)
        for user in ("", *members)
    ]


def queue_namespaces(queue: dict, teams: list[TeamSpec]) -> list[str]:
    """Where the queue gets a LocalQueue: its team's namespaces, or every team's if shared."""
    owners = [t for t in teams if t.slug == queue.get("team")] if queue.get("team") else teams
    return sorted(ns for team in owners for ns in team.namespaces)


def render_queue(queue: dict, teams: list[TeamSpec]) -> list[dict]:
    return [render_cluster_queue(queue), *render_local_queues(queue, teams)]


def render_all(state: PolicyState) -> list[dict]:
    """Every object the policy asks for, in creation order."""
    objects = [render_namespace(t, ns) for t in state.teams for ns in t.namespaces]
    if state.checkpoint_volume:
        volume = state.checkpoint_volume
        objects += [
            render_checkpoint_claim(t, ns, volume) for t in state.teams for ns in t.namespaces
        ]
    objects += [render_topology(f) for f in state.flavors if f.get("topology_levels")]
    objects += [render_flavor(f) for f in state.flavors]
    objects += [render_cohort(c) for c in state.cohorts]
    objects += [render_priority_class(t) for t in state.tiers]
    for queue in state.queues:
        objects += render_queue(queue, state.teams)
    return objects


def to_api_version(obj: dict, version: str) -> dict:
    """The manifest as sent to a cluster spoken to in ``version`` (Kueue kinds only)."""
    if not obj["apiVersion"].startswith(f"{GROUP}/") or version == STORAGE_VERSION:
        return obj
    renames = V1BETA1_RENAMES.get(obj["kind"], {})
    spec = {renames.get(k, k): v for k, v in (obj.get("spec") or {}).items()}
    converted = {**obj, "apiVersion": f"{GROUP}/{version}"}
    if "spec" in obj:
        converted["spec"] = spec
    return converted


def owned_fields(kind: str, version: str) -> tuple[str, ...]:
    """``OWNED_FIELDS`` spelled for ``version``."""
    if version == STORAGE_VERSION:
        return OWNED_FIELDS[kind]
    renames = V1BETA1_RENAMES.get(kind, {})
    return tuple(
        ".".join(renames.get(part, part) for part in path.split(".")) for path in OWNED_FIELDS[kind]
    )


def object_key(obj: dict) -> tuple[str, str, str]:
    """(kind, namespace, name): the identity of an object across desired and observed."""
    meta = obj["metadata"]
    return (obj["kind"], meta.get("namespace") or "", meta["name"])


def is_managed(obj: dict) -> bool:
    return ((obj.get("metadata") or {}).get("labels") or {}).get(MANAGED_BY) == MANAGER
