from django import forms

from apps.notifications.choices import NotificationKind, WebhookFormat


class PreferenceForm(forms.Form):
    email_enabled = forms.BooleanField(required=False, label="Email me")
    webhook_url = forms.URLField(
        required=False,
        assume_scheme="https",
        max_length=500,
        label="Webhook URL",
        help_text='Posted a JSON message (or a Slack/Teams-style {"text": …}) per notification.',
    )
    webhook_format = forms.ChoiceField(choices=WebhookFormat.choices, initial=WebhookFormat.JSON)
    muted_kinds = forms.MultipleChoiceField(
        choices=NotificationKind.choices,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        label="Don't tell me about",
    )
