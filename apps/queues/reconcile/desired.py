"""Desired state: the policy rows as a ``PolicyState``, rendered into manifests."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.db.models import Prefetch

from apps.queues import kueue
from apps.queues.models import (
    Cohort,
    Membership,
    PriorityTier,
    Queue,
    ResourceFlavor,
    Team,
    TeamNamespace,
)
from apps.queues.reconcile.plan import NamespaceRules
from apps.queues.snapshots import queue_snapshot
from core.namespaces import protected_patterns

# Other apps contribute ClusterQueues of their own (the notebook pool of ``apps.jobs``)
# as queue snapshots, registered from their AppConfig.ready(). They are rendered,
# diffed, pruned and fingerprinted exactly like the queues of this app.
_QUEUE_PROVIDERS: list[Callable[[], list[dict]]] = []


def register_queue_provider(provider: Callable[[], list[dict]]) -> None:
    if provider not in _QUEUE_PROVIDERS:
        _QUEUE_PROVIDERS.append(provider)


def provided_queues() -> list[dict]:
    return [snapshot for provider in _QUEUE_PROVIDERS for snapshot in provider()]


def load_flavors() -> list[dict]:
    return list(
        ResourceFlavor.objects.values(
            "name", "node_labels", "node_taints", "tolerations", "topology_levels"
        )
    )


def load_cohorts() -> list[dict]:
    return [
        {
            "name": c.name,
            "parent": c.parent.name if c.parent_id else None,
            "fair_weight": c.fair_weight,
        }
        for c in Cohort.objects.select_related("parent")
    ]


def load_tiers() -> list[dict]:
    return list(PriorityTier.objects.values("name", "value", "description"))


def load_teams(slugs: set[str] | None = None) -> list[kueue.TeamSpec]:
    """Teams with their namespaces and members; only ``slugs`` when given."""
    # One query for the members with their users, whether or not any team has some.
    members = Prefetch("memberships", queryset=Membership.objects.select_related("user"))
    teams = Team.objects.prefetch_related("namespaces", members)
    if slugs is not None:
        teams = teams.filter(slug__in=slugs)
    return [
        kueue.TeamSpec(
            t.slug,
            t.cost_center,
            tuple(ns.name for ns in t.namespaces.all()),
            tuple(sorted(m.user.get_username() for m in t.memberships.all())),
        )
        for t in teams
    ]


def load_namespace_rules() -> NamespaceRules:
    """Where the reconciler may write: the deny-list, and the namespaces admins adopted."""
    adopted = TeamNamespace.objects.exclude(adopted_at=None).values_list("name", flat=True)
    return NamespaceRules(protected=protected_patterns(), adopted=frozenset(adopted))


def checkpoint_volume() -> kueue.CheckpointVolume | None:
    """The checkpoint claim each team namespace gets, or None without a storage class."""
    if not settings.QM_CHECKPOINT_STORAGE_CLASS:
        return None
    return kueue.CheckpointVolume(
        settings.QM_CHECKPOINT_STORAGE_CLASS, settings.QM_CHECKPOINT_VOLUME_SIZE
    )


def load_state() -> kueue.PolicyState:
    """Read every policy row once (a fixed number of queries, whatever the size)."""
    return kueue.PolicyState(
        flavors=load_flavors(),
        cohorts=load_cohorts(),
        tiers=load_tiers(),
        teams=load_teams(),
        queues=[queue_snapshot(q) for q in Queue.objects.with_policy()] + provided_queues(),
        checkpoint_volume=checkpoint_volume(),
    )


def desired_objects(state: kueue.PolicyState | None = None) -> list[dict]:
    """Every manifest the policy asks for, in the API version we talk to the cluster in."""
    version = settings.KUEUE_API_VERSION
    objects = kueue.render_all(state or load_state())
    return [kueue.to_api_version(obj, version) for obj in objects]
