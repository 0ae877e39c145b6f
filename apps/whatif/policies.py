"""The two policies a what-if compares, as the Kueue manifests the cluster would get.

A draft is ``{queue name: proposal}``, each proposal in the shape
``save_queue_policy`` accepts. Both sides go through ``apps.queues.kueue`` so
the engine sees exactly the objects the reconciler would write.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

from apps.queues import kueue
from apps.queues.reconcile.desired import load_state
from apps.queues.services.policy import normalize_proposal
from core.errors import InvalidInput
from core.kueue_config import cluster_configuration

Draft = dict[str, dict[str, Any]]


def apply_draft(state: kueue.PolicyState, draft: Draft) -> kueue.PolicyState:
    """``state`` with each drafted queue replaced by its normalised proposal."""
    by_name = {q["name"]: q for q in state.queues}
    unknown = sorted(set(draft) - set(by_name))
    if unknown:
        raise InvalidInput.single("draft", f"no such queue: {', '.join(unknown)}")
    queues = [
        normalize_proposal(q, draft[q["name"]]) if q["name"] in draft else q for q in state.queues
    ]
    return kueue.PolicyState(state.flavors, state.cohorts, state.tiers, state.teams, queues)


def policy_objects(state: kueue.PolicyState, *, fair_sharing: bool) -> list[dict]:
    """Every manifest of ``state``, plus Kueue's Configuration as the cluster's: fair
    sharing as ``fair_sharing`` says, AdmissionFairSharing as the settings say."""
    return [*kueue.render_all(state), *cluster_configuration(fair_sharing=fair_sharing)]


def current_and_proposed(draft: Draft) -> tuple[kueue.PolicyState, kueue.PolicyState]:
    """The saved policy, and the same with the draft applied (reads the database)."""
    state = load_state()
    return state, apply_draft(state, draft)


def fair_sharing_enabled() -> bool:
    return settings.QM_KUEUE_FAIR_SHARING
