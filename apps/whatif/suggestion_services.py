"""Every write of the policy suggestions: store what the rules propose, start their
what-ifs, dismiss one.

Called by the weekly task (``actor`` None: every queue) and by the page's "Look again
now" button (the viewer: the queues they may edit). The rules and the cluster's dry
runs are read first, outside any transaction (they include HTTP requests); each
suggestion is then written on its own. Nothing here applies a suggestion.
"""

from __future__ import annotations

import hashlib
import json

from django.db import transaction
from django.utils import timezone

from apps.whatif import services
from apps.whatif.choices import RunStatus, SuggestionState
from apps.whatif.models import PolicySuggestion
from apps.whatif.suggestion_list import Checked, suggestions_for, window_days
from core import permissions
from core.audit import AuditAction, record_audit
from core.bounds import length_error
from core.errors import InvalidInput, NotAllowed, RuleBroken

# A later look re-judges these; a dismissed one only when its evidence changed (_rejudge).
REJUDGED = (SuggestionState.OFFERED, SuggestionState.REFUSED, SuggestionState.SUPERSEDED)


def look_for_suggestions(*, actor=None) -> list[PolicySuggestion]:
    """Store the rules' current suggestions in ``actor``'s scope, retire the rest, and
    start a what-if for each offered one that has none (or whose what-if failed)."""
    checked = suggestions_for(actor)
    stored = [_store(c) for c in checked]
    _supersede(actor, keep=[s.pk for s in stored])
    for suggestion in stored:
        if _needs_whatif(suggestion):
            _start_whatif(suggestion, actor=actor)
    return stored


@transaction.atomic
def dismiss_suggestion(suggestion: PolicySuggestion, *, actor, reason: str = "") -> None:
    """Set an offered or refused suggestion aside, kept with who, when and why.

    Later looks find the row by its fingerprint and leave it dismissed while its
    evidence is unchanged (``_rejudge``), so the same draft is not offered again.
    """
    if not permissions.can_dismiss_suggestion(actor, suggestion):
        raise NotAllowed("only the queue's team leads and admins dismiss its suggestions")
    if problem := length_error(PolicySuggestion, "dismissed_reason", reason):
        raise InvalidInput.single("reason", f"{problem}, e.g. reason=we grow in March")
    # Locked: two people dismissing at once (or a look re-judging it meanwhile) must
    # leave one dismissal and one audit row, with the state it really had before.
    current = PolicySuggestion.objects.select_for_update().get(pk=suggestion.pk)
    if current.state not in SuggestionState.open_values():
        raise RuleBroken(
            f"suggestion #{current.pk} is {current.state}, not open; nothing dismissed",
            code="not_open",
        )
    before = current.state
    current.state = SuggestionState.DISMISSED
    current.dismissed_at, current.dismissed_by = timezone.now(), actor
    current.dismissed_reason = reason
    current.save(update_fields=["state", "dismissed_at", "dismissed_by", "dismissed_reason"])
    record_audit(
        actor=actor,
        action=AuditAction.UPDATE,
        obj=current,
        team=suggestion.queue.team,
        before={"state": before},
        after={"state": current.state},
        reason=reason,
    )


def fingerprint(kind: str, queue: str, flavor: str, weeks: list[str], proposal: dict) -> str:
    """The same draft of the same rule over the same weeks has the same fingerprint."""
    key = json.dumps([kind, queue, flavor, sorted(weeks), proposal], sort_keys=True)
    return hashlib.sha256(key.encode()).hexdigest()


@transaction.atomic
def _store(checked: Checked) -> PolicySuggestion:
    rule = checked.suggestion
    state = SuggestionState.OFFERED if checked.offered else SuggestionState.REFUSED
    key = fingerprint(rule.kind, checked.queue.name, rule.flavor, rule.week_ids, checked.proposal)
    # get_or_create on the unique fingerprint: the weekly job and a button pressed at
    # the same moment store one row between them.
    found, created = PolicySuggestion.objects.get_or_create(
        fingerprint=key,
        defaults={
            "checked_at": timezone.now(),
            "kind": rule.kind,
            "queue": checked.queue,
            "flavor": rule.flavor,
            "title": rule.title,
            "weeks": rule.week_ids,
            "evidence": rule.evidence(),
            "proposal": checked.proposal,
            "state": state,
            "refusal": checked.refusal,
        },
    )
    if not created:
        _rejudge(found, state=state, refusal=checked.refusal, evidence=rule.evidence())
        found.refresh_from_db()
    return found


def _rejudge(found: PolicySuggestion, *, state: str, refusal: str, evidence: dict) -> None:
    """A stored draft found again: judged anew, unless dismissed over the same evidence."""
    row = PolicySuggestion.objects.filter(pk=found.pk)
    judged = {
        "state": state,
        "refusal": refusal,
        "evidence": evidence,
        "checked_at": timezone.now(),
    }
    # A dismissal holds while the evidence is unchanged; a rebuilt report that changed
    # the figures of these weeks reopens it (the audit trail keeps the dismissal).
    reopen = row.filter(state=SuggestionState.DISMISSED).exclude(evidence=evidence)
    if reopen.update(**judged, dismissed_at=None, dismissed_by=None, dismissed_reason=""):
        return
    row.filter(state__in=REJUDGED).update(**judged)


def _supersede(actor, *, keep: list[int]) -> int:
    """Offered or refused suggestions in ``actor``'s scope (None: all) the rules no longer
    propose are superseded."""
    scope = PolicySuggestion.objects.all()
    if actor is not None:
        scope = scope.visible_to(actor)
    stale = scope.filter(
        state__in=(SuggestionState.OFFERED, SuggestionState.REFUSED),
    ).exclude(pk__in=keep)
    return stale.update(state=SuggestionState.SUPERSEDED, checked_at=timezone.now())


def _needs_whatif(suggestion: PolicySuggestion) -> bool:
    if suggestion.state != SuggestionState.OFFERED:
        return False
    run = suggestion.whatif_run
    return run is None or run.status == RunStatus.FAILED


def _start_whatif(suggestion: PolicySuggestion, *, actor) -> None:
    """Replay the draft over the weeks that triggered it, through the usual what-if request."""
    try:
        run = services.request_whatif(
            {suggestion.queue.name: suggestion.proposal},
            actor=actor,
            days=window_days(suggestion.weeks),
            reason=f"policy suggestion #{suggestion.pk}",
        )
    except InvalidInput as exc:
        # The queue's own validation refuses it (e.g. beyond capacity): never offered.
        _refuse(suggestion, f"not replayed: {exc.detail}")
        return
    PolicySuggestion.objects.filter(pk=suggestion.pk).update(whatif_run=run)


def _refuse(suggestion: PolicySuggestion, why: str) -> None:
    PolicySuggestion.objects.filter(pk=suggestion.pk).update(
        state=SuggestionState.REFUSED, refusal=why[:2000]
    )
