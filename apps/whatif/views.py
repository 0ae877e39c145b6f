"""Pages: start a what-if from the queue edit form, watch its progress, read and apply it."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.defaultfilters import pluralize
from django.views.decorators.http import require_POST

from apps.queues.forms import QueuePolicyForm, edit_form_options
from apps.queues.models import ChangeRequest, Queue
from apps.queues.reconcile.preview import change_request_proposal
from apps.queues.snapshots import queue_snapshot
from apps.whatif import charts, services
from apps.whatif.choices import SuggestionState
from apps.whatif.forms import DismissForm
from apps.whatif.models import PolicySuggestion, WhatIfRun
from apps.whatif.money_table import money_rows
from apps.whatif.suggestion_figures import whatif_figures
from apps.whatif.suggestion_services import dismiss_suggestion, look_for_suggestions
from core import permissions
from core.errors import Conflict, InvalidInput, NotAllowed, RuleBroken
from core.pages import show_error


@login_required
@require_POST
def from_queue_edit(request: HttpRequest, pk: int) -> HttpResponse:
    """The queue edit form's "What-if" button: replay its draft (one queue)."""
    queue = get_object_or_404(Queue.objects.visible_to(request.user).with_policy(), pk=pk)
    # Refused before the form is read: an invalid form must not turn a 403 into a redirect.
    if not permissions.can_edit_queue(request.user, queue):
        raise NotAllowed("only the queue's team leads and admins run what-ifs of it")
    form = QueuePolicyForm(request.POST, **edit_form_options(queue_snapshot(queue)))
    if not form.is_valid():
        messages.error(request, "Fix the form before running a what-if.")
        return redirect("queues:queue-edit", pk=pk)
    try:
        run = services.request_whatif(
            {queue.name: form.proposal()}, actor=request.user, reason=form.cleaned_data["reason"]
        )
    except InvalidInput as exc:
        show_error(request, exc)
        return redirect("queues:queue-edit", pk=pk)
    return redirect("whatif:run", pk=run.pk)


@login_required
@require_POST
def from_change_request(request: HttpRequest, pk: int) -> HttpResponse:
    """The change request page's "What-if" button: replay the requested change."""
    visible = ChangeRequest.objects.visible_to(request.user).select_related("queue")
    change_request = get_object_or_404(visible, pk=pk)
    if not permissions.can_edit_queue(request.user, change_request.queue):
        raise NotAllowed("only the queue's team leads and admins run what-ifs of it")
    if not change_request.is_open:
        messages.error(request, f"This request is already {change_request.status}.")
        return redirect("queues:change-request", pk=pk)
    draft = {change_request.queue.name: change_request_proposal(change_request)}
    reason = f"what-if of change request #{change_request.pk}"
    try:
        run = services.request_whatif(draft, actor=request.user, reason=reason)
    except InvalidInput as exc:
        show_error(request, exc)
        return redirect("queues:change-request", pk=pk)
    return redirect("whatif:run", pk=run.pk)


def _run_or_404(request: HttpRequest, pk: int) -> WhatIfRun:
    return get_object_or_404(WhatIfRun.objects.visible_to(request.user), pk=pk)


@login_required
def run_list(request: HttpRequest) -> HttpResponse:
    runs = WhatIfRun.objects.visible_to(request.user).select_related("requested_by")[:50]
    return render(request, "whatif/run_list.html", {"runs": runs})


@login_required
def run_detail(request: HttpRequest, pk: int) -> HttpResponse:
    run = _run_or_404(request, pk)
    chart = charts.before_after(run.result) if run.result else None
    money = (run.result or {}).get("money")
    context = {"run": run, "result": run.result, "chart": chart, "money": money,
               "money_rows": money_rows(money) if money else []}  # fmt: skip
    return render(request, "whatif/run_detail.html", context)


@login_required
@require_POST
def run_apply(request: HttpRequest, pk: int) -> HttpResponse:
    run = _run_or_404(request, pk)
    try:
        outcomes = services.apply_whatif(
            run, actor=request.user, reason=request.POST.get("reason", "")
        )
    except (InvalidInput, Conflict) as exc:
        show_error(request, exc)
        return redirect("whatif:run", pk=pk)
    for outcome in outcomes:
        messages.info(request, _describe(outcome))
    return redirect("whatif:run", pk=pk)


def _describe(outcome) -> str:
    name = outcome.queue.name
    if outcome.change_request is not None:
        return f"{name}: beyond your envelope, sent for approval (change request #{outcome.change_request.pk})."
    return f"{name}: applied." if outcome.applied else f"{name}: no changes."


@login_required
def suggestion_list(request: HttpRequest) -> HttpResponse:
    """Stored suggestions: leads see their teams'; admins all, and those the cluster refused."""
    return _suggestion_page(request, DismissForm())


def _suggestion_page(request: HttpRequest, form: DismissForm, status: int = 200) -> HttpResponse:
    if not permissions.can_run_whatif(request.user):
        raise NotAllowed("only team leads and admins see policy suggestions")
    visible = PolicySuggestion.objects.shown_to(request.user).select_related(
        "queue", "whatif_run", "dismissed_by"
    )
    offered = [
        (s, whatif_figures(s.whatif_run.result) if s.whatif_run and s.whatif_run.result else None)
        for s in visible.filter(state=SuggestionState.OFFERED)
    ]
    refused = visible.filter(state=SuggestionState.REFUSED)  # admins only: shown_to
    dismissed = visible.filter(state=SuggestionState.DISMISSED).order_by("-dismissed_at")[:50]
    replaying = any(s.whatif_run and not s.whatif_run.is_finished for s, _ in offered)
    context = {"offered": offered, "refused": refused, "dismissed": dismissed,
               "replaying": replaying, "dismiss_form": form}  # fmt: skip
    return render(request, "whatif/suggestion_list.html", context, status=status)


@login_required
@require_POST
def suggestion_dismiss(request: HttpRequest, pk: int) -> HttpResponse:
    """ "Dismiss": set one suggestion aside, with an optional reason."""
    suggestion = get_object_or_404(PolicySuggestion.objects.shown_to(request.user), pk=pk)
    form = DismissForm(request.POST)
    if not form.is_valid():
        for problem in form.errors.get("reason", []):
            messages.error(request, f"reason: {problem} For example: we grow in March.")
        return _suggestion_page(request, form, status=400)
    try:
        dismiss_suggestion(suggestion, actor=request.user, reason=form.cleaned_data["reason"])
    except RuleBroken as exc:
        show_error(request, exc)
        return redirect("whatif:suggestions")
    messages.info(request, f"Dismissed: {suggestion.title}.")
    return redirect("whatif:suggestions")


@login_required
@require_POST
def suggestion_refresh(request: HttpRequest) -> HttpResponse:
    """ "Look again now": run the rules for the queues the viewer may edit, as the weekly job."""
    if not permissions.can_run_whatif(request.user):
        raise NotAllowed("only team leads and admins look for policy suggestions")
    found = look_for_suggestions(actor=request.user)
    offered = sum(s.state == SuggestionState.OFFERED for s in found)
    messages.info(request, f"Looked again: {offered} suggestion{pluralize(offered)} offered.")
    return redirect("whatif:suggestions")
