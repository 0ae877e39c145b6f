"""The interactive pool as a queue snapshot, for the reconciler's desired state.

``apps.queues.reconcile.desired`` renders it like any shared queue: one ClusterQueue
named after the pool, admitting from every team namespace, plus a LocalQueue of the
same name in each of them. Its WorkloadPriorityClass is the pool's priority tier,
which the catalog already renders.
"""

from __future__ import annotations

from apps.jobs.models import InteractivePool


def pool_snapshot(pool: InteractivePool) -> dict:
    """The pool in ``apps.queues.snapshots`` form.

    Lending: the ClusterQueue joins the cohort with everything lendable, never
    borrows (``borrowingLimit: 0``) and takes lent GPUs back by preemption
    (``reclaimWithinCohort: Any``). Strictly reserved: no cohort at all.
    """
    lending = pool.lend_idle_capacity and pool.cohort_id is not None
    quotas = []
    for pf in pool.flavors.all():
        for resource, nominal in (
            (pf.gpu_resource, str(pf.gpus)),
            ("cpu", pf.cpu),
            ("memory", pf.memory),
        ):
            quotas.append(
                {
                    "flavor": pf.flavor.name,
                    "resource": resource,
                    "nominal": nominal,
                    "borrowing_limit": "0" if lending else None,
                    "lending_limit": None,
                }
            )
    return {
        "name": pool.name,
        "team": None,
        "cohort": pool.cohort.name if lending else None,
        "fair_weight": "1",
        "queueing_strategy": "BestEffortFIFO",
        "stop_policy": "None",
        "preemption": {
            "reclaim_within_cohort": "Any" if lending else "Never",
            "within_cluster_queue": "Never",
            "borrow_within_cohort": "Never",
            "borrow_max_priority_threshold": None,
        },
        "quotas": quotas,
        "version": 0,
    }


def pool_queues() -> list[dict]:
    """Queue provider registered with the reconciler: the enabled pool, if any."""
    pools = InteractivePool.objects.filter(is_enabled=True).select_related("cohort")
    return [pool_snapshot(p) for p in pools.prefetch_related("flavors__flavor")]
