"""Platform admins' launcher tokens page: issue (secret shown once), change grants, revoke."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from apps.accounts.services import revoke_api_token
from apps.jobs import services
from apps.jobs.forms import LauncherForm, LauncherTeamsForm, team_choices
from apps.jobs.models import LauncherGrant
from core import permissions
from core.errors import DomainError
from core.pages import add_to_form


def _require_admin(request: HttpRequest) -> None:
    if not permissions.can_manage_launchers(request.user):
        raise PermissionDenied


def _grants():
    return (
        LauncherGrant.objects.select_related("token__user", "granted_by")
        .prefetch_related("teams")
        .order_by("-pk")
    )


@never_cache  # the response that carries a new secret must not be stored anywhere
@login_required
def launchers(request: HttpRequest) -> HttpResponse:
    _require_admin(request)
    form = LauncherForm(request.POST or None)
    created = None
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            created = services.issue_launcher_token(
                data["user"], data["name"], data["teams"], actor=request.user, days=data["days"]
            )
        except DomainError as exc:
            add_to_form(form, exc)
        else:
            form = LauncherForm()
    choices = team_choices()
    grants = [
        (
            g,
            LauncherTeamsForm(initial={"teams": [t.slug for t in g.teams.all()]}, choices=choices),
        )
        for g in _grants()
    ]
    context = {
        "form": form,
        "grants": grants,
        "created": created[0].token if created else None,
        "secret": created[1] if created else "",
    }
    return render(request, "jobs/launchers.html", context, status=201 if created else 200)


@login_required
@require_POST
def launcher_teams(request: HttpRequest, pk: int) -> HttpResponse:
    _require_admin(request)
    grant = get_object_or_404(LauncherGrant, pk=pk)
    form = LauncherTeamsForm(request.POST)
    if not form.is_valid():
        for problem in form.errors.get("teams", []):
            messages.error(request, f"Teams: {problem}")
        return redirect("jobs:launchers")
    try:
        services.set_launcher_teams(grant, form.cleaned_data["teams"], actor=request.user)
    except DomainError as exc:
        messages.error(request, f"{(exc.field or '').capitalize()}: {exc.detail}")
    else:
        messages.success(request, f"Grant of {grant.token} saved.")
    return redirect("jobs:launchers")


@login_required
@require_POST
def launcher_revoke(request: HttpRequest, pk: int) -> HttpResponse:
    _require_admin(request)
    grant = get_object_or_404(LauncherGrant.objects.select_related("token__user"), pk=pk)
    if revoke_api_token(grant.token, actor=request.user, reason="launcher revoked"):
        messages.success(request, f"Launcher token {grant.token} revoked.")
    return redirect("jobs:launchers")
