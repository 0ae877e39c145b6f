"""Visibility applied once: every API queryset goes through the model's ``visible_to``.

Each model's queryset answers ``visible_to(user)`` (the rules are the apps'); this mixin
is how a viewset asks, so no endpoint can forget to. An object the user may not see
answers 404 exactly as one that does not exist.
"""

from __future__ import annotations


class VisibleMixin:
    """Scope every queryset to what the requesting user may see."""

    base_queryset = None

    def get_queryset(self):
        return self.base_queryset.visible_to(self.request.user)
