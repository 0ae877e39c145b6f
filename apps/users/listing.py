"""Reads of user administration: who sees which users, and the list's columns."""

from __future__ import annotations

from django.db.models import Count, Prefetch, Q, QuerySet

from apps.accounts.models import User
from apps.jobs.choices import NotebookState
from apps.queues.models import Membership
from core import permissions

ACTIVE, DISABLED = "active", "disabled"


def users_visible_to(viewer) -> QuerySet[User]:
    """Admins see every user; anyone else only themselves: last sign-in and notebooks are
    private, and "not yours" answers 404 like a missing user. (Team members are public
    on the team pages and API.)"""
    users = User.objects.all()
    if not permissions.can_manage_users(viewer):
        users = users.filter(pk=viewer.pk) if permissions.is_signed_in(viewer) else users.none()
    return users


def with_columns(users: QuerySet[User]) -> QuerySet[User]:
    """Teams with roles and the count of running notebooks, in a fixed number of queries."""
    running = Q(notebooks__state__in=NotebookState.active_values())
    memberships = Membership.objects.select_related("team").order_by("team__slug")
    return users.annotate(running_notebooks=Count("notebooks", filter=running)).prefetch_related(
        Prefetch("memberships", queryset=memberships)
    )


def one_with_columns(user: User) -> User:
    """``user`` re-read with the list's columns (after a write)."""
    return with_columns(User.objects.filter(pk=user.pk)).get()


def search(users: QuerySet[User], text: str = "", status: str = "") -> QuerySet[User]:
    """Users whose username, display name or e-mail contains ``text``, active or disabled."""
    text = (text or "").strip()
    if text:
        users = users.filter(
            Q(username__icontains=text) | Q(display_name__icontains=text) | Q(email__icontains=text)
        )
    if status == ACTIVE:
        users = users.filter(is_active=True)
    elif status == DISABLED:
        users = users.filter(is_active=False)
    return users.order_by("username")
