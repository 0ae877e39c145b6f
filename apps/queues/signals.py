"""``policy_committed`` fires after a transaction that changed quota policy commits.

The reconciler listens to it; services only announce, so the domain does not
depend on the cluster code.
"""

from django.db import transaction
from django.dispatch import Signal

policy_committed = Signal()


def policy_changed() -> None:
    transaction.on_commit(lambda: policy_committed.send(sender=None))
