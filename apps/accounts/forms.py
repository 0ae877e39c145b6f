"""Edge validation of token requests (the service checks the same rules again), and the
sign-in forms with their lockout."""

import time

from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import ValidationError

from apps.accounts import login_guard
from apps.accounts.services import (
    DEFAULT_DAYS,
    MAX_DAYS,
    MIN_DAYS,
    NAME_MAX_LENGTH,
    record_login_lockout,
)
from core.client_address import counted_as, request_client_address


class TokenForm(forms.Form):
    name = forms.CharField(
        max_length=NAME_MAX_LENGTH, help_text="What it is for, e.g. laptop or CI."
    )
    days = forms.IntegerField(
        label="Expires in (days)",
        min_value=MIN_DAYS,
        max_value=MAX_DAYS,
        initial=DEFAULT_DAYS,
        help_text=f"{MIN_DAYS} to {MAX_DAYS} days.",
    )


class LoginGuardMixin:
    """Sign-in forms refuse locked-out usernames and addresses before checking the password
    (so a refusal takes the same time whatever the password), and count wrong passwords."""

    locked_out_message = "Too many failed sign-in attempts. Try again in {minutes} min."

    def clean(self):
        username = self.cleaned_data.get("username") or ""
        address = request_client_address(self.request) if self.request is not None else ""
        lockout = login_guard.current_lockout(username, counted_as(address))
        if lockout is not None:
            raise ValidationError(
                self.locked_out_message.format(minutes=lockout.minutes_left(time.time())),
                code="locked_out",
            )
        try:
            cleaned = super().clean()
        except ValidationError:
            # Only a failed password check counts (no user found): a right password refused
            # afterwards (the admin site for a non-staff user) is not a guess.
            if self.user_cache is None:
                for started in login_guard.record_failure(username, counted_as(address)):
                    record_login_lockout(started, username=username, address=address)
            raise
        if self.user_cache is not None:  # None: a field was missing, no password was checked
            login_guard.record_success(username)
        return cleaned


class GuardedLoginForm(LoginGuardMixin, AuthenticationForm):
    pass


class GuardedAdminLoginForm(LoginGuardMixin, AdminAuthenticationForm):
    pass
