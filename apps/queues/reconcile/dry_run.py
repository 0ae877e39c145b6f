"""Ask the cluster whether it would accept a queue change, storing nothing.

The ClusterQueue is rendered from the proposal exactly as the reconciler renders a
saved one, then sent with ``dryRun=All``: the API server's validation and Kueue's
admission webhooks judge it, so what they would refuse on apply is known before.
"""

from __future__ import annotations

from django.conf import settings

from apps.queues import kueue
from apps.queues.models import Queue
from apps.queues.reconcile.observe import ref
from apps.queues.services.policy import normalize_proposal
from apps.queues.snapshots import queue_snapshot
from core.kube import KubeClient, KubeError


def cluster_queue_refusal(queue: Queue, proposal: dict, client: KubeClient | None = None) -> str:
    """The cluster's message refusing the changed ClusterQueue; "" when it would accept it.

    Raises ``KubeError`` when the cluster cannot answer (unreachable, forbidden): no
    answer is not an acceptance.
    """
    version = settings.KUEUE_API_VERSION
    current = queue_snapshot(Queue.objects.with_policy().get(pk=queue.pk))
    desired = kueue.to_api_version(
        kueue.render_cluster_queue(normalize_proposal(current, proposal)), version
    )
    target = ref(desired["kind"], version)
    with client or KubeClient() as kube:
        try:
            try:
                kube.patch(target, queue.name, {"spec": desired["spec"]}, dry_run=True)
            except KubeError as exc:
                if exc.code != 404:
                    raise
                kube.create(target, desired, dry_run=True)
        except KubeError as exc:
            if exc.code in (400, 422):
                return exc.message
            raise
    return ""
