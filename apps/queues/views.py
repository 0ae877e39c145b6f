"""Pages. Each view parses input, asks ``permissions``/``visible_to``, calls one service, renders."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from apps.queues import services
from apps.queues.api.views import stream_audit_csv
from apps.queues.capacity import load_capacity, load_holders
from apps.queues.cohort_tree import team_tree
from apps.queues.forms import QueuePolicyForm, edit_form_options
from apps.queues.guidance import quota_guidance
from apps.queues.models import AuditEntry, ChangeRequest, Queue, Team
from apps.queues.overview import capacity_rows, chart_data
from apps.queues.reconcile.desired import load_state
from apps.queues.reconcile.preview import (
    change_request_proposal,
    cluster_queue_changes,
    queue_manifest_diff,
)
from apps.queues.reconcile.status import last_updated, overview_states, queue_sync
from apps.queues.reservations import FOREIGN, of_source
from apps.queues.services.policy import capacity_overridden, envelope_for, load_catalog
from apps.queues.snapshots import queue_snapshot
from apps.queues.user_usage import remembered_usage, team_usage_rows
from core import permissions
from core.errors import Conflict, InvalidInput, NotAllowed
from core.pages import add_to_form, show_error

AUDIT_PAGE_SIZE = 50


@login_required
def overview(request: HttpRequest) -> HttpResponse:
    queues = list(Queue.objects.visible_to(request.user).with_policy())
    # Capacity is divided by every reservation, including queues this user cannot see.
    holders = load_holders()
    rows = capacity_rows(load_capacity(), holders)
    sync = overview_states(queues)
    for queue in queues:
        queue.sync_badge = sync.get(queue.pk)
    context = {
        "rows": rows,
        "foreign": of_source(holders, FOREIGN),
        "chart": chart_data(rows),
        "queues": [(q, queue_snapshot(q)) for q in queues],
        "teams": Team.objects.visible_to(request.user).with_details(),
    }
    return render(request, "queues/overview.html", context)


@login_required
def team_detail(request: HttpRequest, slug: str) -> HttpResponse:
    team = get_object_or_404(Team.objects.visible_to(request.user).with_details(), slug=slug)
    members = team.memberships.select_related("user").order_by("role", "user__username")
    queues = [(q, queue_snapshot(q)) for q in team.queues.with_policy()]
    context = {
        "team": team,
        "members": members,
        "queues": queues,
        "user_usage": team_usage_rows(
            [q.name for q, _ in queues if q.fair_between_users],
            [ns.name for ns in team.namespaces.all()],
            sorted(m.user.get_username() for m in members),
            remembered_usage(),
        ),
        "envelope": getattr(team, "envelope", None),
        "change_requests": ChangeRequest.objects.visible_to(request.user).filter(queue__team=team)[
            :20
        ],
        "can_view_audit": permissions.can_view_team_audit(request.user, team),
        "cohort_tree": team_tree(load_state(), team.slug),
    }
    return render(request, "queues/team_detail.html", context)


def _queue_or_404(request: HttpRequest, pk: int) -> Queue:
    return get_object_or_404(Queue.objects.visible_to(request.user).with_policy(), pk=pk)


@login_required
def queue_detail(request: HttpRequest, pk: int) -> HttpResponse:
    queue = _queue_or_404(request, pk)
    history = AuditEntry.objects.visible_to(request.user).filter(
        object_type="queue", object_id=str(pk)
    )
    sync = queue_sync(queue)
    context = {
        "queue": queue,
        "snapshot": _with_room_left(queue, queue_snapshot(queue)),
        "show_room": True,
        "can_edit": permissions.can_edit_queue(request.user, queue),
        "history": history[:20],
        "sync": sync,
        "updated_at": last_updated(queue, sync),
    }
    return render(request, "queues/queue_detail.html", context)


def _with_room_left(queue: Queue, snapshot: dict) -> dict:
    """The snapshot with each quota's room left under capacity (every other reservation
    subtracted, the queue's own not), as the edit page shows it."""
    catalog = load_catalog(excluding_queue=queue)
    guidance = quota_guidance(catalog.capacity, catalog.reserved_by_others, None)
    for quota in snapshot["quotas"]:
        found = guidance.get((quota["flavor"], quota["resource"]))
        quota["room_left"] = found.room_left if found else None
    return snapshot


@login_required
def queue_edit(request: HttpRequest, pk: int) -> HttpResponse:
    queue = _queue_or_404(request, pk)
    if not permissions.can_edit_queue(request.user, queue):
        raise PermissionDenied
    snapshot = queue_snapshot(queue)
    form_kwargs = edit_form_options(snapshot)
    if request.method != "POST":
        form = QueuePolicyForm(initial=QueuePolicyForm.initial_from(snapshot), **form_kwargs)
        return _render_edit(request, queue, form)
    form = QueuePolicyForm(request.POST, **form_kwargs)
    if not form.is_valid():
        return _render_edit(request, queue, form)
    if "save" not in request.POST:
        return _preview(request, queue, form)
    return _save(request, queue, form)


def _preview(request: HttpRequest, queue: Queue, form: QueuePolicyForm) -> HttpResponse:
    # Read the draft before errors are attached: add_error drops a field's cleaned value,
    # and a proposal read afterwards would lack the very quota that is in error.
    proposal = form.proposal()
    preview = services.preview_queue_change(queue, proposal, actor=request.user)
    overridden = capacity_overridden(request.user, form.cleaned_data["capacity_override_reason"])
    if errors := {**preview.errors, **preview.capacity_errors}:
        _attach_errors(form, InvalidInput(errors), proposal)
    # Only a draft the save would apply has a diff; a refused one shows its errors alone.
    refused = preview.refused(capacity_overridden=overridden)
    manifests = "" if refused else queue_manifest_diff(queue, proposal)
    return _render_edit(
        request, queue, form, preview=preview, refused=refused, manifest_diff=manifests
    )


def _save(request: HttpRequest, queue: Queue, form: QueuePolicyForm) -> HttpResponse:
    proposal, data = form.proposal(), form.cleaned_data
    try:
        outcome = services.save_queue_policy(
            queue,
            proposal,
            actor=request.user,
            expected_version=data["version"],
            reason=data["reason"],
            capacity_override_reason=data["capacity_override_reason"],
        )
    except InvalidInput as exc:
        _attach_errors(form, exc, proposal)
        return _render_edit(request, queue, form, status=400)
    except Conflict as exc:
        return _render_edit(request, queue, form, conflict=exc, status=409)
    if outcome.change_request is not None:
        messages.info(
            request,
            "This change is beyond your team's envelope and was sent to an admin for approval.",
        )
        return redirect("queues:change-request", pk=outcome.change_request.pk)
    messages.success(request, "Saved." if outcome.applied else "No changes to save.")
    return redirect("queues:queue", pk=queue.pk)


def _attach_errors(form: QueuePolicyForm, exc: InvalidInput, proposal: dict | None = None) -> None:
    proposal = proposal or form.proposal()
    add_to_form(form, exc, lambda path: form.field_for_error(path, proposal), repeat_path=False)


def _render_edit(
    request,
    queue,
    form,
    *,
    preview=None,
    refused=False,
    conflict=None,
    status=200,
    manifest_diff="",
) -> HttpResponse:
    # An admin has no envelope: every edit of theirs applies at once.
    envelope = None if permissions.is_admin(request.user) else envelope_for(queue.team)
    catalog = load_catalog(excluding_queue=queue)
    guidance = quota_guidance(catalog.capacity, catalog.reserved_by_others, envelope)
    context = {
        "queue": queue,
        "form": form,
        "quota_rows": [
            {**row, "guide": guidance.get((row["flavor"], row["resource"]))}
            for row in form.quota_rows()
        ],
        "envelope": envelope,
        "preview": preview,
        "refused": refused,
        "manifest_diff": manifest_diff,
        "conflict": conflict,
        "is_admin": permissions.is_admin(request.user),
    }
    return render(request, "queues/queue_edit.html", context, status=status)


@login_required
def change_requests(request: HttpRequest) -> HttpResponse:
    visible = ChangeRequest.objects.visible_to(request.user).select_related("queue", "requested_by")
    context = {"pending": visible.pending(), "decided": visible.exclude(status="pending")[:50]}
    return render(request, "queues/change_requests.html", context)


def _change_request_or_404(request: HttpRequest, pk: int) -> ChangeRequest:
    visible = ChangeRequest.objects.visible_to(request.user).select_related("queue__team")
    return get_object_or_404(visible, pk=pk)


@login_required
def change_request_detail(request: HttpRequest, pk: int) -> HttpResponse:
    change_request = _change_request_or_404(request, pk)
    kueue_changes, manifest_diff = [], ""
    if change_request.is_open:
        proposal = change_request_proposal(change_request)
        kueue_changes = cluster_queue_changes(change_request.queue, proposal)
        manifest_diff = queue_manifest_diff(change_request.queue, proposal)
    context = {
        "cr": change_request,
        "kueue_changes": kueue_changes,
        "manifest_diff": manifest_diff,
        # Who may edit the queue may replay a draft of it (apps.whatif re-checks).
        "can_whatif": change_request.is_open
        and permissions.can_edit_queue(request.user, change_request.queue),
        "can_decide": change_request.is_open
        and permissions.can_decide_change_request(request.user),
        "can_withdraw": change_request.is_open
        and permissions.can_withdraw_change_request(request.user, change_request),
    }
    return render(request, "queues/change_request_detail.html", context)


@login_required
@require_POST
def change_request_decide(request: HttpRequest, pk: int) -> HttpResponse:
    change_request = _change_request_or_404(request, pk)
    # Refused before the decision is read: a bad one must not turn a 403 into a redirect.
    if not (
        permissions.can_decide_change_request(request.user)
        or permissions.can_withdraw_change_request(request.user, change_request)
    ):
        raise NotAllowed("only platform admins decide change requests; its requester withdraws")
    verb = request.POST.get("decision")
    comment = request.POST.get("comment", "")
    try:
        if verb == "approve":
            services.approve_change_request(
                change_request,
                actor=request.user,
                comment=comment,
                capacity_override_reason=request.POST.get("capacity_override_reason", ""),
            )
        elif verb == "reject":
            services.reject_change_request(change_request, actor=request.user, comment=comment)
        elif verb == "withdraw":
            services.withdraw_change_request(change_request, actor=request.user)
        else:
            raise InvalidInput.single("decision", "must be approve, reject or withdraw")
    except InvalidInput as exc:
        show_error(request, exc)
    return redirect("queues:change-request", pk=pk)


def _audit_page(request: HttpRequest, entries, *, team: Team | None) -> HttpResponse:
    if request.GET.get("format") == "csv":
        name = f"audit-{team.slug}.csv" if team else "audit.csv"
        return stream_audit_csv(entries.iterator(), name)
    page = Paginator(entries, AUDIT_PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "queues/audit.html", {"page": page, "team": team})


@login_required
def audit_global(request: HttpRequest) -> HttpResponse:
    if not permissions.can_view_global_audit(request.user):
        raise PermissionDenied
    return _audit_page(request, AuditEntry.objects.select_related("team"), team=None)


@login_required
def audit_team(request: HttpRequest, slug: str) -> HttpResponse:
    team = get_object_or_404(Team.objects.visible_to(request.user), slug=slug)
    if not permissions.can_view_team_audit(request.user, team):
        raise Http404
    entries = AuditEntry.objects.visible_to(request.user).filter(team=team).select_related("team")
    return _audit_page(request, entries, team=team)
