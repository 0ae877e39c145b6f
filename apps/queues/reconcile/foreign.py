"""ClusterQueues on the cluster that the portal does not manage (pure).

Kueue guarantees their nominal quota as it does ours, so the capacity figures count
them (``apps.queues.reservations``). A full reconcile reads them with everything else
and ``services.reconcile_records.record_foreign_cluster_queues`` keeps what it saw.
"""

from __future__ import annotations

from apps.queues import kueue
from apps.queues.reconcile.importer import cluster_queue_quotas, cohort_of
from apps.queues.reconcile.plan import Key


def foreign_cluster_queues(observed: dict[Key, dict]) -> list[dict]:
    """Unlabelled ClusterQueues as ``{name, cohort, quotas}``, by name."""
    found = [
        {
            "name": obj["metadata"]["name"],
            "cohort": cohort_of(obj) or "",
            "quotas": cluster_queue_quotas((obj.get("spec") or {}).get("resourceGroups") or []),
        }
        for key, obj in observed.items()
        if key[0] == kueue.CLUSTER_QUEUE and not kueue.is_managed(obj)
    ]
    return sorted(found, key=lambda queue: queue["name"])
