"""Edge validation of token requests; the service checks the same rules again."""

from django import forms

from apps.accounts.services import DEFAULT_DAYS, MAX_DAYS, MIN_DAYS, NAME_MAX_LENGTH


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
