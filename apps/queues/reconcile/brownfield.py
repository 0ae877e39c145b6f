"""Run a brownfield import end to end: read the cluster, write policy, optionally label."""

from __future__ import annotations

from django.conf import settings

from apps.queues.models import Cohort, PriorityTier, Queue, ResourceFlavor, TeamNamespace
from apps.queues.reconcile.importer import ImportPlan, read_cluster, take_ownership, translate
from apps.queues.services import cluster_import
from core.kube import KubeClient
from core.namespaces import protected_patterns


def _known() -> dict[str, set[str]]:
    return {
        "flavors": set(ResourceFlavor.objects.values_list("name", flat=True)),
        "cohorts": set(Cohort.objects.values_list("name", flat=True)),
        "tiers": set(PriorityTier.objects.values_list("name", flat=True)),
        "queues": set(Queue.objects.values_list("name", flat=True)),
    }


def import_from_cluster(*, actor, take_ownership_of_objects: bool) -> tuple[ImportPlan, list[str]]:
    """Returns what was imported and the items that failed validation."""
    version = settings.KUEUE_API_VERSION
    namespace_teams = dict(TeamNamespace.objects.values_list("name", "team__slug"))
    with KubeClient() as kube:
        plan = translate(
            read_cluster(kube, version),
            known=_known(),
            namespace_teams=namespace_teams,
            protected=protected_patterns(),
        )
        problems = cluster_import.import_policy(plan, actor=actor)
        if take_ownership_of_objects:
            take_ownership(kube, version, plan.keys)
            problems += cluster_import.adopt_imported_namespaces(plan, actor=actor)
    return plan, problems
