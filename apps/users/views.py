"""The Users administration pages (platform admins): list and search, create (the
one-time set-password link shown once), disable, re-enable, stop notebooks. Each view
calls one service."""

from __future__ import annotations

import functools
from collections.abc import Callable

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from apps.accounts.models import User
from apps.users import listing, services
from apps.users.forms import SearchForm, UserCreateForm
from core import permissions
from core.errors import DomainError, NotAllowed
from core.pages import add_to_form, show_error


def users_admin(view: Callable) -> Callable:
    """Signed in (else the login form) and allowed to manage users (else 403)."""

    @login_required
    @functools.wraps(view)
    def guarded(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if not permissions.can_manage_users(request.user):
            raise NotAllowed("only platform admins manage users")
        return view(request, *args, **kwargs)

    return guarded


@users_admin
def user_list(request: HttpRequest) -> HttpResponse:
    search = SearchForm(request.GET)
    query = search.cleaned_data if search.is_valid() else {}
    users = listing.search(User.objects.all(), query.get("q", ""), query.get("status", ""))
    context = {
        "search": search,
        "users": listing.with_columns(users),
        "local_accounts": not settings.QM_OIDC_ENABLED,
    }
    return render(request, "users/list.html", context)


@never_cache  # the response that carries the one-time link must not be stored anywhere
@users_admin
def user_new(request: HttpRequest) -> HttpResponse:
    form = UserCreateForm(request.POST or None)
    created, link = None, ""
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        spec = services.NewUser(
            username=data["username"],
            email=data["email"],
            display_name=data["display_name"],
            teams=form.team_roles(),
        )
        try:
            created, path = services.create_user(spec, actor=request.user)
        except DomainError as exc:
            add_to_form(form, exc)
        else:
            link, form = request.build_absolute_uri(path), UserCreateForm()
    context = {
        "form": form,
        "created": created,
        "link": link,
        "local_accounts": not settings.QM_OIDC_ENABLED,
    }
    return render(request, "users/new.html", context, status=201 if created else 200)


def _acted(request: HttpRequest, pk: int, act: Callable[[User], str]) -> HttpResponse:
    """Run one service on user ``pk``; its outcome or error is flashed on the list."""
    user = get_object_or_404(User, pk=pk)
    try:
        messages.success(request, act(user))
    except DomainError as exc:
        show_error(request, exc)
    return redirect("users:list")


@require_POST
@users_admin
def user_disable(request: HttpRequest, pk: int) -> HttpResponse:
    stop = request.POST.get("stop_notebooks") == "on"

    def act(user: User) -> str:
        if not services.disable_user(user, actor=request.user, stop_notebooks=stop):
            return f"{user} was disabled already."
        return f"{user} is disabled: no sign-in, API tokens or sessions."

    return _acted(request, pk, act)


@require_POST
@users_admin
def user_enable(request: HttpRequest, pk: int) -> HttpResponse:
    def act(user: User) -> str:
        if not services.enable_user(user, actor=request.user):
            return f"{user} was active already."
        return f"{user} may sign in again."

    return _acted(request, pk, act)


@require_POST
@users_admin
def user_stop_notebooks(request: HttpRequest, pk: int) -> HttpResponse:
    def act(user: User) -> str:
        stopped = services.stop_user_notebooks(user, actor=request.user)
        return f"Stopped {stopped} notebook(s) of {user}."

    return _acted(request, pk, act)
