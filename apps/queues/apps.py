from django.apps import AppConfig


class QueuesConfig(AppConfig):
    name = "apps.queues"
    label = "queues"
    verbose_name = "Quota policy"

    def ready(self) -> None:
        from apps.queues.reconcile.trigger import on_policy_committed
        from apps.queues.signals import policy_committed

        policy_committed.connect(on_policy_committed, dispatch_uid="reconcile-on-policy-change")
