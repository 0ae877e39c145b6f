from django.apps import AppConfig


class JobsConfig(AppConfig):
    name = "apps.jobs"
    label = "jobs"

    def ready(self) -> None:
        from apps.jobs.pool import pool_queues
        from apps.queues.reconcile.desired import register_queue_provider

        # The notebook pool is a ClusterQueue + LocalQueues like any team queue.
        register_queue_provider(pool_queues)
