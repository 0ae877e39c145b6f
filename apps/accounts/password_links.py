"""One-time set-password links for accounts an admin created (local accounts mode).

The link carries Django's ``default_token_generator`` token, which hashes the user's
current password hash and last sign-in: setting a password changes the hash, so the
link works once; it expires after ``PASSWORD_RESET_TIMEOUT``. Nothing of it is stored.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.tokens import default_token_generator
from django.contrib.auth.views import PasswordResetConfirmView
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode


def set_password_path(user) -> str:
    """The path of ``user``'s one-time set-password page (the caller makes it absolute)."""
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    token = default_token_generator.make_token(user)
    return reverse("accounts:set-password", args=[uid, token])


class SetPasswordView(PasswordResetConfirmView):
    """Django's reset-confirm page, refusing disabled users: a link handed out before the
    account was disabled must not let anyone choose its password."""

    def get_user(self, uidb64):
        user = super().get_user(uidb64)
        return user if user is not None and user.is_active else None

    def form_valid(self, form):
        messages.success(self.request, "Password set: sign in with it now.")
        return super().form_valid(form)
