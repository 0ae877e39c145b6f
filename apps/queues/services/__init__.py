"""Every write to the quota domain. Views, API, admin, commands and tasks call these."""

from apps.queues.services.approvals import (
    approve_change_request,
    expire_stale_change_requests,
    reject_change_request,
    withdraw_change_request,
)
from apps.queues.services.catalog import (
    add_membership,
    create_team,
    save_cohort,
    save_envelope,
    save_flavor,
    save_priority_tier,
    sync_memberships,
)
from apps.queues.services.members import change_role, remove_membership, update_team
from apps.queues.services.namespaces import adopt_namespace
from apps.queues.services.policy import (
    SaveOutcome,
    create_queue,
    preview_queue_change,
    save_queue_policy,
)

__all__ = [
    "SaveOutcome",
    "add_membership",
    "adopt_namespace",
    "approve_change_request",
    "change_role",
    "create_queue",
    "create_team",
    "expire_stale_change_requests",
    "preview_queue_change",
    "reject_change_request",
    "remove_membership",
    "save_cohort",
    "save_envelope",
    "save_flavor",
    "save_priority_tier",
    "save_queue_policy",
    "sync_memberships",
    "update_team",
    "withdraw_change_request",
]
