from django.apps import AppConfig


class QueuesConfig(AppConfig):
    name = "apps.queues"
    label = "queues"
    verbose_name = "Quota policy"

    def ready(self) -> None:
        from apps.queues.gauges import register_gauges
        from apps.queues.models import AuditEntry
        from apps.queues.reconcile.trigger import on_policy_committed
        from apps.queues.signals import policy_committed
        from core.audit import use_audit_model

        # Every app's services write their audit rows here (``core.audit.record_audit``).
        use_audit_model(AuditEntry)

        policy_committed.connect(on_policy_committed, dispatch_uid="reconcile-on-policy-change")
        register_gauges()
