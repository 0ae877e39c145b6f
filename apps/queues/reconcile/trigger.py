"""Run the reconciler soon after a policy change commits, once per burst."""

from __future__ import annotations

import logging

from django.conf import settings

from apps.queues.reconcile.coordination import coordinator

log = logging.getLogger(__name__)


def on_policy_committed(sender, **kwargs) -> None:
    """Receiver of ``policy_committed``: schedule one debounced run."""
    if not settings.QM_CLUSTER_SYNC:
        return
    from apps.queues.tasks import reconcile_task

    try:
        if coordinator().claim_pending():
            reconcile_task.apply_async(
                kwargs={"trigger": "change"}, countdown=settings.QM_RECONCILE_DEBOUNCE_SECONDS
            )
    except Exception:
        # The change is committed; failing the request now would only confuse the
        # user. The periodic run picks the change up within the interval.
        log.exception("could not schedule a reconcile; the periodic run will apply the change")
