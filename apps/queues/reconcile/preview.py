"""What saving a queue edit would change in the cluster, as a YAML diff.

Compares the manifests rendered from the saved policy with those rendered from
the proposal; no cluster access, so the edit page stays fast when the cluster
is slow or away (drift, if any, is repaired and reported separately).
"""

from __future__ import annotations

from django.conf import settings

from apps.queues import kueue
from apps.queues.models import Queue
from apps.queues.reconcile import plan as p
from apps.queues.reconcile.desired import load_teams
from apps.queues.reconcile.yamldiff import plan_diff
from apps.queues.services.policy import normalize_proposal
from apps.queues.snapshots import apply_changes, queue_snapshot


def _render(snapshot: dict, teams: list[kueue.TeamSpec], version: str) -> list[dict]:
    return [kueue.to_api_version(o, version) for o in kueue.render_queue(snapshot, teams)]


def queue_manifest_diff(queue: Queue, proposal: dict) -> str:
    version = settings.KUEUE_API_VERSION
    current = queue_snapshot(Queue.objects.with_policy().get(pk=queue.pk))
    proposed = normalize_proposal(current, proposal)
    teams = load_teams()
    saved = {kueue.object_key(o): o for o in _render(current, teams, version)}
    actions = p.plan(_render(proposed, teams, version), saved, version=version)
    return plan_diff(actions, version)


def flatten_manifest(value, path: str = "") -> dict[str, object]:
    """``{"spec.resourceGroups[0].flavors[h100].resources[nvidia.com/gpu].nominalQuota": 8}``.

    List items with a ``name`` are keyed by it, so adding a flavor does not shift the others.
    """
    if isinstance(value, dict):
        flat: dict[str, object] = {}
        for key, inner in value.items():
            flat.update(flatten_manifest(inner, f"{path}.{key}" if path else key))
        return flat
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        flat = {}
        for i, inner in enumerate(value):
            flat.update(flatten_manifest(inner, f"{path}[{inner.get('name', i)}]"))
        return flat
    return {path: value}


def manifest_field_changes(before: dict, after: dict) -> list[dict]:
    """Pure: the fields of one object that differ, as ``{field, before, after}`` rows."""
    old, new = flatten_manifest(before), flatten_manifest(after)
    return [
        {"field": key, "before": old.get(key), "after": new.get(key)}
        for key in sorted(set(old) | set(new))
        if old.get(key) != new.get(key)
    ]


def cluster_queue_changes(queue: Queue, proposal: dict) -> list[dict]:
    """The ClusterQueue spec fields saving ``proposal`` would change (no cluster access)."""
    version = settings.KUEUE_API_VERSION
    current = queue_snapshot(Queue.objects.with_policy().get(pk=queue.pk))
    proposed = normalize_proposal(current, proposal)
    before, after = (
        kueue.to_api_version(kueue.render_cluster_queue(s), version) for s in (current, proposed)
    )
    return manifest_field_changes(before["spec"], after["spec"])


def change_request_proposal(change_request) -> dict:
    """What approving the request would save: its changes on top of the queue as it is now
    (as approval rebases them), without the fields a proposal may not carry."""
    current = queue_snapshot(Queue.objects.with_policy().get(pk=change_request.queue_id))
    proposed = apply_changes(current, change_request.changes)
    return {k: v for k, v in proposed.items() if k not in ("name", "team", "version")}
