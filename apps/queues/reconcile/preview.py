"""What saving a queue edit would change in the cluster, as a YAML diff.

Compares the manifests rendered from the saved policy with those rendered from
the proposal; no cluster access, so the edit page stays fast when the cluster
is slow or away (drift, if any, is repaired and reported separately).
"""

from __future__ import annotations

from django.conf import settings

from apps.queues import kueue
from apps.queues.models import Queue, Team
from apps.queues.reconcile import plan as p
from apps.queues.reconcile.yamldiff import plan_diff
from apps.queues.services.policy import normalize_proposal
from apps.queues.snapshots import queue_snapshot


def _teams() -> list[kueue.TeamSpec]:
    return [
        kueue.TeamSpec(t.slug, t.cost_center, tuple(ns.name for ns in t.namespaces.all()))
        for t in Team.objects.prefetch_related("namespaces")
    ]


def _render(snapshot: dict, teams: list[kueue.TeamSpec], version: str) -> list[dict]:
    return [kueue.to_api_version(o, version) for o in kueue.render_queue(snapshot, teams)]


def queue_manifest_diff(queue: Queue, proposal: dict) -> str:
    version = settings.KUEUE_API_VERSION
    current = queue_snapshot(Queue.objects.with_policy().get(pk=queue.pk))
    proposed = normalize_proposal(current, proposal)
    teams = _teams()
    saved = {kueue.object_key(o): o for o in _render(current, teams, version)}
    actions = p.plan(_render(proposed, teams, version), saved, version=version)
    return plan_diff(actions, version)
