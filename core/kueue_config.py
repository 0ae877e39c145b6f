"""The cluster's Kueue Configuration, as the portal's settings describe it.

Kueue's Configuration lives in a ConfigMap of Kueue's own namespace, which the portal
neither reads nor may read; the settings say what it holds (``QM_KUEUE_FAIR_SHARING``,
``QM_KUEUE_ADMISSION_FAIR_SHARING``), and every run of the admission model that stands
for the cluster (quotes, start estimates, what-if replays) reads it from here.
"""

from __future__ import annotations

from django.conf import settings

from kueuemodel import configuration


def cluster_configuration(*, fair_sharing: bool | None = None) -> list[dict]:
    """The Configuration object to add to the model's objects ([] when neither fair
    sharing nor AdmissionFairSharing is on). ``fair_sharing`` overrides the setting."""
    fair = settings.QM_KUEUE_FAIR_SHARING if fair_sharing is None else fair_sharing
    block = settings.QM_KUEUE_ADMISSION_FAIR_SHARING
    config = configuration(
        fair_sharing=fair, admission_fair_sharing=dict(block) if block is not None else None
    )
    return [] if config is None else [config]
