"""Administration pages for platform admins: teams and members, envelopes, flavors,
cohorts and priority tiers. Each view parses a form, calls one catalog service and
redirects; a service's ``InvalidInput`` goes back onto the form and nothing is written."""

from __future__ import annotations

import functools
from collections.abc import Callable

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from apps.accounts.models import User
from apps.queues import services
from apps.queues.catalog_forms import (
    CohortForm,
    EnvelopeForm,
    FlavorForm,
    MemberAddForm,
    MemberRoleForm,
    PriorityTierForm,
    TeamCreateForm,
    TeamEditForm,
)
from apps.queues.cohort_tree import whole_tree
from apps.queues.models import (
    AuditEntry,
    Cohort,
    FlavorCapacity,
    PriorityTier,
    ResourceFlavor,
    Team,
)
from apps.queues.reconcile.desired import load_state
from core import permissions
from core.errors import InvalidInput
from core.pages import add_to_form


def admin_only(view: Callable) -> Callable:
    """Signed in (else the login form) and a platform admin (else 403, as the audit log)."""

    @login_required
    @functools.wraps(view)  # its name, and __wrapped__ for tests that read the view's body
    def guarded(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if not permissions.can_manage_catalog(request.user):
            raise PermissionDenied
        return view(request, *args, **kwargs)

    return guarded


def _posted(request: HttpRequest):
    """The form data of a POST (bound even when empty, so missing fields are named)."""
    return request.POST if request.method == "POST" else None


def _saved(form, save: Callable, fields=None):
    """Run ``save`` if the form is valid; a service's rule breaks go onto the form."""
    if not form.is_valid():
        return None
    try:
        return save(form.cleaned_data)
    except InvalidInput as exc:
        add_to_form(form, exc, fields)
        return None


def _page(request, template: str, context: dict) -> HttpResponse:
    status = 400 if request.method == "POST" else 200  # reached on POST only with errors
    return render(request, f"queues/admin/{template}", context, status=status)


def _history(obj) -> list[AuditEntry]:
    if obj is None:
        return []
    entries = AuditEntry.objects.filter(object_type=obj._meta.model_name, object_id=str(obj.pk))
    return list(entries[:20])


@admin_only
def index(request: HttpRequest) -> HttpResponse:
    context = {
        "teams": Team.objects.prefetch_related("namespaces").order_by("slug"),
        "flavors": ResourceFlavor.objects.prefetch_related("capacities"),
        "cohorts": Cohort.objects.select_related("parent"),
        "tiers": PriorityTier.objects.all(),
        "cohort_tree": whole_tree(load_state()),
    }
    return render(request, "queues/admin/index.html", context)


@admin_only
def team_new(request: HttpRequest) -> HttpResponse:
    form = TeamCreateForm(_posted(request))
    save = lambda _: services.create_team(**form.arguments(), actor=request.user)  # noqa: E731
    done = lambda team: reverse("queues:admin-team", args=[team.slug])  # noqa: E731
    return _form_page(request, form, save, done=done, template="team_new.html", context={})


def _team(slug: str) -> Team:
    return get_object_or_404(Team.objects.prefetch_related("namespaces"), slug=slug)


def _team_page(request, team, *, form=None, add_form=None) -> HttpResponse:
    members = team.memberships.select_related("user").order_by("user__username")
    context = {
        "team": team,
        "form": form or TeamEditForm(initial=_team_initial(team)),
        "add_form": add_form or MemberAddForm(),
        "members": [(m, MemberRoleForm(initial={"role": m.role}, auto_id=False)) for m in members],
        "history": AuditEntry.objects.filter(team=team)[:20],
    }
    return _page(request, "team.html", context)


def _team_initial(team: Team) -> dict:
    return {"display_name": team.display_name, "cost_center": team.cost_center}


@admin_only
def team_edit(request: HttpRequest, slug: str) -> HttpResponse:
    team = _team(slug)
    form = TeamEditForm(_posted(request), initial=_team_initial(team))
    if request.method == "POST":
        save = lambda data: services.update_team(team=team, **data, actor=request.user)  # noqa: E731
        if _saved(form, save):
            messages.success(request, "Saved.")
            return redirect("queues:admin-team", slug=slug)
    return _team_page(request, team, form=form)


@admin_only
@require_POST
def member_add(request: HttpRequest, slug: str) -> HttpResponse:
    team = _team(slug)
    form = MemberAddForm(request.POST)

    def save(data):
        return services.add_membership(
            team=team, user=data["username"], role=data["role"], actor=request.user
        )

    membership = _saved(form, save)
    if membership is None:
        return _team_page(request, team, add_form=form)
    name = membership.user.get_username()
    messages.success(request, f"{name} is now {membership.get_role_display()} of {team.slug}.")
    return redirect("queues:admin-team", slug=slug)


def _member_change(request, team: Team, form, save, done: str) -> HttpResponse:
    """Role changes and removals answer on the team page: a flash naming the field."""
    if _saved(form, save) is None:
        for field, problems in form.errors.items():
            messages.error(request, f"{field}: {' '.join(problems)}")
        return _team_page(request, team)
    messages.success(request, done)
    return redirect("queues:admin-team", slug=team.slug)


@admin_only
@require_POST
def member_role(request: HttpRequest, slug: str, user_id: int) -> HttpResponse:
    team, user = _team(slug), get_object_or_404(User, pk=user_id)
    form = MemberRoleForm(request.POST)
    save = lambda data: services.change_role(team=team, user=user, actor=request.user, **data)  # noqa: E731
    done = f"{user.get_username()} is now {form.data.get('role')} of {team.slug}."
    return _member_change(request, team, form, save, done)


@admin_only
@require_POST
def member_remove(request: HttpRequest, slug: str, user_id: int) -> HttpResponse:
    team, user = _team(slug), get_object_or_404(User, pk=user_id)
    save = lambda _: services.remove_membership(team=team, user=user, actor=request.user)  # noqa: E731
    done = f"{user.get_username()} is no longer a member of {team.slug}."
    return _member_change(request, team, forms.Form(request.POST), save, done)


def _envelope_grid() -> list[tuple[str, str]]:
    capacities = FlavorCapacity.objects.select_related("flavor").order_by("flavor__name")
    return [(c.flavor.name, c.resource) for c in capacities.order_by("flavor__name", "resource")]


@admin_only
def envelope_edit(request: HttpRequest, slug: str) -> HttpResponse:
    team = _team(slug)
    envelope = getattr(team, "envelope", None)
    initial = EnvelopeForm.initial_from(envelope)
    form = EnvelopeForm(_posted(request), initial=initial, grid=_envelope_grid())
    if request.method == "POST" and form.is_valid():
        limits = form.limits()

        def save(data):
            return services.save_envelope(
                team=team,
                actor=request.user,
                min_weight=data["min_weight"] or None,
                max_weight=data["max_weight"] or None,
                limits=limits,
                reason=data["reason"],
            )

        if _saved(form, save, form.field_for(limits)):
            messages.success(request, f"Envelope of {team.slug} saved.")
            return redirect("queues:admin-team", slug=slug)
    return _page(request, "envelope.html", {"team": team, "form": form})


def _form_page(request, form, save, *, done, template: str, context: dict) -> HttpResponse:
    """The create/edit page of one catalog object: saved → message and redirect to
    ``done(obj)``; otherwise the form again, with what was wrong on its fields."""
    obj = _saved(form, save) if request.method == "POST" else None
    if obj:
        messages.success(request, f"Saved {obj}.")
        return redirect(done(obj))
    return _page(request, template, {"form": form, **context})


def _to_index(_obj) -> str:
    return reverse("queues:admin")


def _to_flavor(flavor: ResourceFlavor) -> str:
    return reverse("queues:admin-flavor", args=[flavor.name])


# One view per kind serves its "new" URL (no name) and its edit URL (a name).


@admin_only
def flavor_page(request: HttpRequest, name: str | None = None) -> HttpResponse:
    flavors = ResourceFlavor.objects.prefetch_related("capacities")
    flavor = get_object_or_404(flavors, name=name) if name else None
    initial = FlavorForm.initial_from(flavor) if flavor else {}
    form = FlavorForm(_posted(request), initial=initial, editing=bool(flavor))
    save = lambda data: services.save_flavor(**{"name": name, **data}, actor=request.user)  # noqa: E731
    context = {"flavor": flavor, "history": _history(flavor)}
    return _form_page(request, form, save, done=_to_flavor, template="flavor.html", context=context)


@admin_only
def cohort_page(request: HttpRequest, name: str | None = None) -> HttpResponse:
    cohort = get_object_or_404(Cohort.objects.select_related("parent"), name=name) if name else None
    form = CohortForm(
        _posted(request),
        initial=_cohort_initial(cohort),
        parents=list(Cohort.objects.exclude(name=name).values_list("name", flat=True)),
        editing=bool(cohort),
    )
    save = lambda data: services.save_cohort(**{"name": name, **data}, actor=request.user)  # noqa: E731
    context = {"cohort": cohort, "history": _history(cohort)}
    return _form_page(request, form, save, done=_to_index, template="cohort.html", context=context)


def _cohort_initial(cohort: Cohort | None) -> dict:
    if cohort is None:
        return {}
    parent = cohort.parent.name if cohort.parent_id else ""
    return {"parent": parent, "fair_weight": cohort.fair_weight, "description": cohort.description}


@admin_only
def tier_page(request: HttpRequest, name: str | None = None) -> HttpResponse:
    tier = get_object_or_404(PriorityTier, name=name) if name else None
    initial = {"value": tier.value, "description": tier.description} if tier else {}
    form = PriorityTierForm(_posted(request), initial=initial, editing=bool(tier))
    save = lambda data: services.save_priority_tier(**{"name": name, **data}, actor=request.user)  # noqa: E731
    context = {"tier": tier, "history": _history(tier)}
    return _form_page(request, form, save, done=_to_index, template="tier.html", context=context)
