"""Edge validation of the user administration forms (the services check the rules again)."""

from django import forms

from apps.queues.models import Team
from core.roles import TeamRole

NO_ROLE = ""


class UserCreateForm(forms.Form):
    """Username, e-mail, display name, and one role field per team (blank: not a member)."""

    username = forms.CharField(
        max_length=150, help_text="Letters, digits and @ . + - _, e.g. carol.smith"
    )
    email = forms.CharField(required=False, help_text="e.g. carol@example.org")
    display_name = forms.CharField(required=False, max_length=150, help_text="e.g. Carol Smith")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        choices = [(NO_ROLE, "—"), *TeamRole.choices]
        for team in Team.objects.order_by("slug"):
            self.fields[f"team_{team.slug}"] = forms.ChoiceField(
                label=f"Role in {team.slug}", choices=choices, required=False
            )

    def team_roles(self) -> dict[str, str]:
        return {
            name.removeprefix("team_"): role
            for name, role in self.cleaned_data.items()
            if name.startswith("team_") and role != NO_ROLE
        }


class SearchForm(forms.Form):
    q = forms.CharField(required=False, label="Search")
    status = forms.ChoiceField(
        required=False, choices=[("", "all"), ("active", "active"), ("disabled", "disabled")]
    )
