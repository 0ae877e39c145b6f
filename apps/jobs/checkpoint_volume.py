"""Which volume a batch pod keeps its checkpoints on, from the settings."""

from __future__ import annotations

from django.conf import settings

from apps.queues.kueue import CHECKPOINT_CLAIM


def mounted_claim() -> str:
    """The claim batch pods mount at ``CHECKPOINT_PATH``; '' for a scratch emptyDir.

    With a storage class the reconciler gives every team namespace its claim
    (``apps.queues.kueue.render_checkpoint_claim``); without one an admin may name a
    claim of their own (``QM_CHECKPOINT_CLAIM``) that exists in every team namespace.
    """
    if settings.QM_CHECKPOINT_STORAGE_CLASS:
        return CHECKPOINT_CLAIM
    return settings.QM_CHECKPOINT_CLAIM


def checkpoints_survive_restarts() -> bool:
    """Whether a preempted job's restarted pod finds the checkpoints it wrote."""
    return bool(mounted_claim())
