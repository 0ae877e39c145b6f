"""Forms of the what-if pages: dismissing a policy suggestion."""

from django import forms

from apps.whatif.models import PolicySuggestion
from core.bounds import max_length


class DismissForm(forms.Form):
    """Why the suggestion is set aside: optional, a paragraph at most (its column's length)."""

    reason = forms.CharField(
        required=False,
        max_length=max_length(PolicySuggestion, "dismissed_reason"),
        widget=forms.TextInput(attrs={"placeholder": "e.g. we grow in March"}),
    )
