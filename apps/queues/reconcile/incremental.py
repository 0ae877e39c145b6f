"""The fast path after a queue edit: reconcile only queues whose policy moved.

A full run lists every object of every kind (about 2 s at 2,000 queues). After a
quota edit only that queue's ClusterQueue and LocalQueues can differ, so the
change-triggered run fetches just those, when it can prove nothing else moved:

* a queue is *dirty* when its ClusterQueue's sync row was not written from the
  queue's current ``version``;
* every manifest the fast path leaves alone (all but the queues' own
  ClusterQueues: namespaces, flavors, cohorts, tiers, LocalQueues, other apps'
  queues) is rendered by the same functions a full run uses and hashed in
  ``catalog_fingerprint``; the fast path is only taken when the hash equals the
  one of the last clean full run. Nothing lists the renderer's inputs by hand,
  so a field added to a renderer is covered without touching this module.

Anything else (catalog edits, pruning, drift) is left to the full run, which the
schedule runs every ``QM_RECONCILE_INTERVAL_SECONDS``.
"""

from __future__ import annotations

import hashlib
import json

from django.conf import settings
from django.db.models import Exists, OuterRef

from apps.queues import kueue
from apps.queues.models import Queue, SyncObject, SyncRun
from apps.queues.reconcile import plan as p
from apps.queues.reconcile.desired import (
    load_cohorts,
    load_flavors,
    load_namespace_rules,
    load_teams,
    load_tiers,
    provided_queues,
)
from apps.queues.reconcile.observe import ref
from apps.queues.snapshots import queue_snapshot
from core.kube import KubeClient


def catalog_fingerprint() -> str:
    version = settings.KUEUE_API_VERSION
    objects = [kueue.to_api_version(obj, version) for obj in untouched_manifests()]
    objects.sort(key=kueue.object_key)
    return hashlib.sha256(json.dumps(objects, sort_keys=True, default=str).encode()).hexdigest()


def untouched_manifests() -> list[dict]:
    """Every manifest the policy asks for except the queues' ClusterQueues."""
    teams = load_teams()
    catalog = kueue.PolicyState(
        load_flavors(), load_cohorts(), load_tiers(), teams, provided_queues()
    )
    # LocalQueues depend on the queue's name, team and fair_between_users (with the
    # team's members), not on the quotas.
    heads = Queue.objects.values("name", "team__slug", "fair_between_users")
    local = [
        obj
        for head in heads
        for obj in kueue.render_local_queues({**head, "team": head["team__slug"]}, teams)
    ]
    return kueue.render_all(catalog) + local


def last_clean_fingerprint() -> str:
    run = SyncRun.objects.exclude(catalog_fingerprint="").first()
    return run.catalog_fingerprint if run else ""


def dirty_queues() -> list[Queue]:
    synced = SyncObject.objects.filter(
        kind=kueue.CLUSTER_QUEUE, queue=OuterRef("pk"), policy_version=OuterRef("version")
    )
    return list(Queue.objects.with_policy().filter(~Exists(synced)))


def _teams(queues: list[Queue]) -> list[kueue.TeamSpec]:
    if all(q.team_id for q in queues):
        return load_teams({q.team.slug for q in queues})
    return load_teams()  # shared queues need every team's namespaces


def compute_queue_plan(client: KubeClient, queues: list[Queue]) -> list[p.Action]:
    """Plan for the given queues' objects only, read one GET at a time."""
    version = settings.KUEUE_API_VERSION
    teams = _teams(queues)
    desired = [
        kueue.to_api_version(obj, version)
        for queue in queues
        for obj in kueue.render_queue(queue_snapshot(queue), teams)
    ]
    keys = [kueue.object_key(obj) for obj in desired]
    observed = _read(client, version, keys)
    # Whether a namespace is ours decides whether we may write in it.
    spaces = _read(client, version, sorted({(kueue.NAMESPACE, "", ns) for _, ns, _ in keys if ns}))
    applied = _applied(set(keys))
    rules = load_namespace_rules()
    return p.plan(
        desired, observed, version=version, applied=applied, namespaces=rules, read_only=spaces
    )


def _read(client: KubeClient, version: str, keys: list[p.Key]) -> dict[p.Key, dict]:
    observed = {}
    for kind, namespace, name in keys:
        live = client.get(ref(kind, version), name, namespace)
        if live is not None:
            observed[(kind, namespace, name)] = {**live, "kind": kind}
    return observed


def _applied(keys: set[p.Key]) -> dict[p.Key, dict]:
    rows = SyncObject.objects.filter(name__in={k[2] for k in keys}).exclude(applied=None)
    return {row.key: row.applied for row in rows if row.key in keys}
