from django.apps import AppConfig


class JobsConfig(AppConfig):
    name = "apps.jobs"
    label = "jobs"

    def ready(self) -> None:
        from apps.jobs.models import Notebook
        from apps.jobs.pool_queue import pool_queues
        from apps.jobs.watch import SUBSCRIBER
        from apps.queues.reconcile.desired import register_queue_provider
        from core.audit import register_private_audit_subject
        from informer import registry

        # The notebook pool is a ClusterQueue + LocalQueues like any team queue.
        register_queue_provider(pool_queues)
        # A notebook's audit entries name its URL path: shown to whoever sees the notebook.
        register_private_audit_subject("notebook", Notebook.objects.audit_ids_visible_to)
        # Status follows the informer's Workload, pod, StatefulSet and Job events.
        registry.subscribe(SUBSCRIBER)
        # tasks: connects the receivers that queue the cluster work the services announce;
        # checks: registers the time-order check (``manage.py check --database default``).
        from apps.jobs import checks, tasks  # noqa: F401
