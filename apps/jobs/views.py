"""Pages of notebooks and jobs. Each view parses, scopes with ``visible_to``, calls one service."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db.models import Sum
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from apps.jobs import services
from apps.jobs.checkpoint_volume import checkpoints_survive_restarts
from apps.jobs.forms import JobForm, NotebookForm, RenewForm, StopForm, SweepForm, SweepLimitForm
from apps.jobs.lifelines import job_figure, notebook_figure
from apps.jobs.manifests import NOTEBOOK_PORT, SERVICE_PORT
from apps.jobs.models import BatchJob, InteractivePool, Notebook, Sweep
from apps.jobs.progress import spawn_progress
from apps.jobs.services.jobs import allowed_tiers
from apps.jobs.services.sweeps import (
    SweepRequest,
    cancel_sweep,
    retry_failed_trials,
    set_sweep_limit,
    submit_sweep,
    sweep_limit,
)
from apps.queues.models import Membership, Team
from core import permissions
from core.dates import format_when
from core.errors import DomainError
from core.pages import add_to_form, show_error

PAGE_SIZE = 50


def _me(request: HttpRequest) -> services.Principal:
    return services.Principal(user=request.user)


def _pool_headroom(pool: InteractivePool | None) -> list[dict]:
    if pool is None:
        return []
    used = dict(
        Notebook.objects.active()
        .filter(pool=pool)
        .values_list("flavor__name")
        .annotate(Sum("gpus"))
    )
    return [
        {"flavor": f.flavor.name, "gpus": f.gpus, "free": f.gpus - (used.get(f.flavor.name) or 0)}
        for f in pool.flavors.select_related("flavor")
    ]


@login_required
def notebook_list(request: HttpRequest) -> HttpResponse:
    notebooks = Notebook.objects.visible_to(request.user).with_related()
    page = Paginator(notebooks, PAGE_SIZE).get_page(request.GET.get("page"))
    pool = InteractivePool.objects.current()
    context = {"page": page, "pool": pool, "headroom": _pool_headroom(pool)}
    return render(request, "jobs/notebook_list.html", context)


@login_required
def notebook_request(request: HttpRequest) -> HttpResponse:
    form = NotebookForm(request.user, request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            submission = services.request_notebook(
                request.user, services.NotebookRequest(**form.cleaned_data), actor=_me(request)
            )
        except DomainError as exc:
            add_to_form(form, exc)
        else:
            messages.success(request, "Notebook requested; it starts once the pool admits it.")
            return redirect("jobs:notebook", submission.record.pk)
    pool = InteractivePool.objects.current()
    context = {"form": form, "pool": pool, "headroom": _pool_headroom(pool)}
    return render(request, "jobs/notebook_form.html", context)


def _notebook(request: HttpRequest, pk: int) -> Notebook:
    return get_object_or_404(Notebook.objects.visible_to(request.user).with_related(), pk=pk)


def _detail(request: HttpRequest, notebook: Notebook, renew: RenewForm | None = None):
    context = {
        "nb": notebook,
        "headroom": _pool_headroom(notebook.pool),
        "progress": spawn_progress(notebook.state, notebook.pending_reason),
        "renew_form": renew or RenewForm(notebook.pool),
        "timeline": notebook_figure(notebook, timezone.now()),
    }
    return render(request, "jobs/notebook_detail.html", context)


@login_required
def notebook_detail(request: HttpRequest, pk: int) -> HttpResponse:
    return _detail(request, _notebook(request, pk))


@login_required
@require_POST
def notebook_renew(request: HttpRequest, pk: int) -> HttpResponse:
    notebook = _notebook(request, pk)
    form = RenewForm(notebook.pool, request.POST)
    if not form.is_valid():
        return _detail(request, notebook, form)  # the field and its rule, nothing written
    try:
        notebook = services.renew_notebook(
            notebook, actor=_me(request), hours=form.cleaned_data["hours"]
        )
    except DomainError as exc:
        if exc.field in form.fields:
            add_to_form(form, exc)
            return _detail(request, notebook, form)
        show_error(request, exc)  # not about the hours: ended, not yours to renew
        return redirect("jobs:notebook", pk)
    messages.success(request, f"Renewed until {format_when(notebook.expires_at)}.")
    return redirect("jobs:notebook", pk)


@login_required
def notebook_stop(request: HttpRequest, pk: int) -> HttpResponse:
    """GET (or a POST without ``confirm``) asks; only the confirming POST stops."""
    notebook = _notebook(request, pk)
    if request.method != "POST" or not StopForm(request.POST).is_valid():
        return render(request, "jobs/notebook_stop.html", {"nb": notebook})
    try:
        stopped = services.stop_notebook(notebook, actor=_me(request))
    except DomainError as exc:
        show_error(request, exc)
    else:
        messages.success(request, "Notebook stopped." if stopped else "It had already ended.")
    return redirect("jobs:notebook", pk)


@login_required
def notebook_open(request: HttpRequest, namespace: str, name: str) -> HttpResponse:
    """Where "Open" goes while QM_NOTEBOOK_URL_TEMPLATE is empty (the demo): what a
    configured cluster would open instead."""
    notebook = get_object_or_404(
        Notebook.objects.visible_to(request.user).with_related(), namespace=namespace, name=name
    )
    context = {"nb": notebook, "service_port": SERVICE_PORT, "notebook_port": NOTEBOOK_PORT}
    return render(request, "jobs/notebook_open.html", context)


def owned_page(request: HttpRequest, queryset) -> tuple:
    """(the page asked for, its scope): the viewer's teams' rows, or with ?scope=mine theirs."""
    scope = "mine" if request.GET.get("scope") == "mine" else "team"
    if scope == "mine":
        queryset = queryset.filter(owner=request.user)
    return Paginator(queryset, PAGE_SIZE).get_page(request.GET.get("page")), scope


@login_required
def job_list(request: HttpRequest) -> HttpResponse:
    page, scope = owned_page(request, BatchJob.objects.visible_to(request.user).with_related())
    return render(request, "jobs/job_list.html", {"page": page, "scope": scope})


def _tiers(user) -> list:
    membership = Membership.objects.filter(user=user).select_related("team").first()
    return allowed_tiers(user, membership.team) if membership else []


@login_required
def job_submit(request: HttpRequest) -> HttpResponse:
    form = JobForm(request.user, _tiers(request.user), request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            submission = services.submit_job(
                request.user, services.JobRequest(**form.request_fields()), actor=_me(request)
            )
        except DomainError as exc:
            add_to_form(form, exc)
        else:
            messages.success(request, "Job submitted.")
            return redirect("jobs:job", submission.record.pk)
    return render(request, "jobs/job_form.html", {"form": form})


def _job(request: HttpRequest, pk: int) -> BatchJob:
    return get_object_or_404(BatchJob.objects.visible_to(request.user).with_related(), pk=pk)


@login_required
def job_detail(request: HttpRequest, pk: int) -> HttpResponse:
    job = _job(request, pk)
    events = list(job.events.all())
    context = {
        "job": job,
        "events": events,
        "timeline": job_figure(events, timezone.now()),
        "checkpoints_survive": checkpoints_survive_restarts(),
    }
    return render(request, "jobs/job_detail.html", context)


@login_required
@require_POST
def job_cancel(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        services.cancel_job(_job(request, pk), actor=_me(request))
    except DomainError as exc:
        show_error(request, exc)
    return redirect("jobs:job", pk)


@login_required
def sweep_submit(request: HttpRequest) -> HttpResponse:
    form = SweepForm(request.user, _tiers(request.user), request.POST or None)
    if request.method == "POST" and form.is_valid():
        job, sweep_fields = form.sweep_fields()
        request_ = SweepRequest(job=services.JobRequest(**job), **sweep_fields)
        try:
            sweep = submit_sweep(request.user, request_, actor=_me(request)).record
        except DomainError as exc:
            add_to_form(form, exc)
        else:
            messages.success(request, f"Sweep submitted: {sweep.trial_count} trials.")
            return redirect("jobs:sweep", sweep.pk)
    return render(request, "jobs/sweep_form.html", {"form": form})


@login_required
def sweep_list(request: HttpRequest) -> HttpResponse:
    page, scope = owned_page(request, Sweep.objects.visible_to(request.user).with_related())
    rows = [(sweep, sweep.progress()) for sweep in page]
    return render(request, "jobs/sweep_list.html", {"page": page, "rows": rows, "scope": scope})


@login_required
def sweep_limit_edit(request: HttpRequest, slug: str) -> HttpResponse:
    """A team's sweep limit per user: everyone reads it, its leads and admins set it."""
    team = get_object_or_404(Team.objects.visible_to(request.user), slug=slug)
    may_set = permissions.can_set_sweep_limit(request.user, team)
    if request.method == "POST" and not may_set:  # refused before the form is read
        raise PermissionDenied(f"only a lead of {team} or an admin sets its sweep limit")
    form = SweepLimitForm(request.POST or None, may_set_envelope=permissions.is_admin(request.user))
    if request.method == "POST" and form.is_valid():
        try:
            set_sweep_limit(team, actor=request.user, **form.limits())
        except DomainError as exc:
            add_to_form(form, exc)
        else:
            messages.success(request, f"Sweep limit of {team} saved.")
            return redirect("jobs:sweep-limit", team.slug)
    context = {"team": team, "limit": sweep_limit(team), "form": form, "may_set": may_set}
    return render(request, "jobs/sweep_limit.html", context)


def _sweep(request: HttpRequest, pk: int) -> Sweep:
    return get_object_or_404(Sweep.objects.visible_to(request.user).with_related(), pk=pk)


@login_required
def sweep_detail(request: HttpRequest, pk: int) -> HttpResponse:
    sweep = _sweep(request, pk)
    context = {"sweep": sweep, "progress": sweep.progress(), "trials": sweep.trial_rows()}
    return render(request, "jobs/sweep_detail.html", context)


@login_required
@require_POST
def sweep_cancel(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        cancelled = cancel_sweep(_sweep(request, pk), actor=_me(request))
    except DomainError as exc:
        show_error(request, exc)
    else:
        messages.success(request, f"Sweep cancelled ({cancelled} running or queued trials).")
    return redirect("jobs:sweep", pk)


@login_required
@require_POST
def sweep_retry(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        queued = retry_failed_trials(_sweep(request, pk), actor=_me(request))
    except DomainError as exc:
        show_error(request, exc)
    else:
        messages.success(request, f"{queued} failed trials will run again, within the limits.")
    return redirect("jobs:sweep", pk)
