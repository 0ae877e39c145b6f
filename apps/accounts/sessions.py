"""Ending a user's sign-in sessions (database sessions, Django's default engine)."""

from __future__ import annotations

from django.contrib.auth import SESSION_KEY
from django.contrib.sessions.models import Session
from django.utils import timezone


def end_sessions_of(user) -> int:
    """Delete every live session signed in as ``user``; returns how many.

    Session rows are keyed by a random id, not by user, so each live one is decoded:
    fine at a portal's few hundred sessions, and only on an admin's disable.
    """
    ended = [
        session.pk
        for session in Session.objects.filter(expire_date__gt=timezone.now()).iterator()
        if session.get_decoded().get(SESSION_KEY) == str(user.pk)
    ]
    Session.objects.filter(pk__in=ended).delete()
    return len(ended)
