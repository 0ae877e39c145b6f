"""Page forms. Choices come from the allow-lists; the services re-check everything."""

from __future__ import annotations

import json

from django import forms

from apps.accounts.services import DEFAULT_DAYS as TOKEN_DEFAULT_DAYS
from apps.accounts.services import MAX_DAYS as TOKEN_MAX_DAYS
from apps.accounts.services import MIN_DAYS as TOKEN_MIN_DAYS
from apps.accounts.services import NAME_MAX_LENGTH as TOKEN_NAME_MAX_LENGTH
from apps.jobs.choices import TopologyMode
from apps.jobs.models import InteractivePool, JobTemplate, NotebookImage, NotebookProfile
from apps.jobs.services.inference import production_flavors
from apps.jobs.services.jobs import submittable_flavors
from apps.queues.models import Membership, PriorityTier


def _flavor_choices(offered: dict[str, list[str]]) -> list:
    """One team: its flavors; several: a group per team, so the choice shows whose quota."""
    if len(offered) == 1:
        return [(name, name) for name in next(iter(offered.values()))]
    return [(team, [(name, name) for name in names]) for team, names in offered.items() if names]


def _teams(user) -> list[tuple[str, str]]:
    rows = Membership.objects.filter(user=user).select_related("team").order_by("team__slug")
    return [(m.team.slug, m.team.slug) for m in rows]


class NotebookForm(forms.Form):
    image = forms.ChoiceField()
    flavor = forms.ChoiceField()
    gpus = forms.IntegerField(min_value=1, initial=1)
    profile = forms.ChoiceField()
    ttl_hours = forms.IntegerField(min_value=1, initial=8, label="Lifetime (hours)")
    team = forms.ChoiceField()
    display_name = forms.CharField(max_length=100, required=False)

    def __init__(self, user, *args, **kwargs):
        super().__init__(*args, **kwargs)
        pool = InteractivePool.objects.current()
        images = NotebookImage.objects.filter(is_enabled=True)
        self.fields["image"].choices = [(i.image, i.image) for i in images]
        flavors = pool.flavors.select_related("flavor") if pool else []
        self.fields["flavor"].choices = [(f.flavor.name, f.flavor.name) for f in flavors]
        self.fields["profile"].choices = [(p.name, str(p)) for p in NotebookProfile.objects.all()]
        self.fields["team"].choices = _teams(user)
        if pool:
            # A new field: bounds set after construction would not be validated.
            self.fields["ttl_hours"] = hours_field(pool, label="Lifetime (hours)")


def hours_field(pool: InteractivePool, *, label: str, required: bool = True):
    return forms.IntegerField(
        label=label,
        min_value=1,
        max_value=pool.max_ttl_hours,
        initial=pool.default_ttl_hours,
        required=required,
        help_text=f"1 to {pool.max_ttl_hours} hours (the pool's maximum).",
    )


class RenewForm(forms.Form):
    """Renew by chosen hours: the expiry becomes now + hours (empty: the pool's default)."""

    def __init__(self, pool: InteractivePool, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["hours"] = hours_field(pool, label="Renew for (hours)", required=False)


class StopForm(forms.Form):
    """The second step of Stop: only a POST carrying ``confirm`` stops the notebook."""

    confirm = forms.BooleanField(required=True)


class JobForm(forms.Form):
    template = forms.ChoiceField()
    command = forms.CharField(
        required=False,
        help_text="One argument per line; empty uses the template's command.",
        widget=forms.Textarea(attrs={"rows": 3}),
    )
    flavor = forms.ChoiceField()
    gpus_per_pod = forms.IntegerField(min_value=1, initial=1)
    pods = forms.IntegerField(min_value=1, initial=1, help_text="Admitted all or nothing.")
    priority_tier = forms.ChoiceField()
    max_runtime_minutes = forms.IntegerField(min_value=1, initial=60)
    checkpoint_dir = forms.CharField(required=False, max_length=200)
    checkpoint_interval_minutes = forms.IntegerField(min_value=1, required=False)
    topology = forms.CharField(
        label="Keep pods together in one",
        required=False,
        max_length=63,
        help_text="A topology level of the flavor, e.g. rack or host; empty: anywhere.",
    )
    topology_mode = forms.ChoiceField(
        required=False, choices=[("", "—"), *TopologyMode.choices], label="Together is"
    )
    team = forms.ChoiceField()
    display_name = forms.CharField(max_length=100, required=False)

    def __init__(self, user, tiers, *args, **kwargs):
        super().__init__(*args, **kwargs)
        templates = JobTemplate.objects.filter(is_enabled=True)
        self.fields["template"].choices = [(t.name, t.name) for t in templates]
        self.fields["flavor"].choices = _flavor_choices(submittable_flavors(user))
        self.fields["flavor"].help_text = "Only flavors your team's queue has GPU quota for."
        tiers = tiers if tiers is not None else PriorityTier.objects.all()
        self.fields["priority_tier"].choices = [(t.name, str(t)) for t in tiers]
        self.fields["team"].choices = _teams(user)

    def request_fields(self) -> dict:
        data = dict(self.cleaned_data)
        data["command"] = tuple(line for line in data["command"].splitlines() if line.strip())
        return data


class SweepForm(JobForm):
    """A job run once per trial: a grid or a list of parameters, in JSON."""

    grid = forms.CharField(
        required=False,
        max_length=100_000,
        help_text='Values per name: one trial per combination, e.g. {"lr": ["0.1", "0.01"], '
        '"seed": [1, 2, 3]}. Each trial\'s command gets --name=value.',
        widget=forms.Textarea(attrs={"rows": 3}),
    )
    parameters = forms.CharField(
        required=False,
        max_length=100_000,
        help_text='Or one object per trial, e.g. [{"lr": "0.1"}, {"lr": "0.01"}].',
        widget=forms.Textarea(attrs={"rows": 3}),
    )
    concurrency_limit = forms.IntegerField(
        min_value=1,
        required=False,
        help_text="Trials held at once; empty for your team's limit per user.",
    )

    def clean_grid(self):
        return _json(self.cleaned_data["grid"], '{"lr": ["0.1", "0.01"]}')

    def clean_parameters(self):
        return _json(self.cleaned_data["parameters"], '[{"lr": "0.1"}, {"lr": "0.01"}]')

    def sweep_fields(self) -> tuple[dict, dict]:
        """(the job's fields, the sweep's: grid, parameters, concurrency_limit)."""
        job = self.request_fields()
        sweep = {name: job.pop(name) for name in ("grid", "parameters", "concurrency_limit")}
        return job, sweep


def _json(text: str, example: str):
    if not text.strip():
        return None
    try:
        return json.loads(text)
    except ValueError:
        raise forms.ValidationError(f"this is JSON, e.g. {example}") from None


def team_choices() -> list[tuple[str, str]]:
    from apps.queues.models import Team

    return [(t.slug, f"{t.slug} — {t.display_name}") for t in Team.objects.order_by("slug")]


class LauncherTeamsForm(forms.Form):
    teams = forms.MultipleChoiceField(
        widget=forms.CheckboxSelectMultiple, help_text="It may act for members of these teams."
    )

    def __init__(self, *args, choices: list | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        # A page with one form per launcher reads the teams once and passes them in.
        self.fields["teams"].choices = team_choices() if choices is None else choices


class LauncherForm(LauncherTeamsForm):
    """A new launcher token; the service re-checks every rule."""

    user = forms.CharField(
        max_length=150, help_text="The launcher's own (service) account, e.g. jupyterhub."
    )
    name = forms.CharField(max_length=TOKEN_NAME_MAX_LENGTH)
    days = forms.IntegerField(
        label="Expires in (days)",
        min_value=TOKEN_MIN_DAYS,
        max_value=TOKEN_MAX_DAYS,
        initial=TOKEN_DEFAULT_DAYS,
        help_text=f"{TOKEN_MIN_DAYS} to {TOKEN_MAX_DAYS} days.",
    )
    field_order = ["user", "name", "days", "teams"]

    def clean_user(self):
        from apps.accounts.models import User

        username = self.cleaned_data["user"].strip()
        user = User.objects.filter(username=username, is_active=True).first()
        if user is None:
            raise forms.ValidationError(f"no active user {username!r}")
        return user


class SweepLimitForm(forms.Form):
    """A team's sweep limit per user; the envelope (``max_per_user``) only for admins."""

    per_user = forms.IntegerField(
        required=False,
        help_text="Trials of sweeps one member may hold at once (queued or running), e.g. 2.",
    )
    max_per_user = forms.IntegerField(
        required=False,
        help_text="The envelope the lead chooses within (platform admins only), e.g. 8.",
    )

    def __init__(self, *args, may_set_envelope: bool, **kwargs):
        super().__init__(*args, **kwargs)
        if not may_set_envelope:
            del self.fields["max_per_user"]

    def limits(self) -> dict:
        """The numbers given, for ``set_sweep_limit`` (an empty field changes nothing)."""
        return {k: v for k, v in self.cleaned_data.items() if v is not None}


class InferenceForm(forms.Form):
    """An inference service: it runs in the team's production queue at the inference tier."""

    image = forms.ChoiceField()
    flavor = forms.ChoiceField()
    replicas = forms.IntegerField(min_value=1, max_value=32, initial=1)
    gpus_per_replica = forms.IntegerField(min_value=1, max_value=8, initial=1)
    command = forms.CharField(
        required=False,
        max_length=10_000,
        help_text="One argument per line; empty for the image's own.",
        widget=forms.Textarea(attrs={"rows": 3}),
    )
    team = forms.ChoiceField()
    display_name = forms.CharField(max_length=100, required=False)

    def __init__(self, user, *args, **kwargs):
        super().__init__(*args, **kwargs)
        images = NotebookImage.objects.filter(is_enabled=True)
        self.fields["image"].choices = [(i.image, i.image) for i in images]
        self.fields["flavor"].choices = _flavor_choices(production_flavors(user))
        self.fields["flavor"].help_text = "Only flavors your team's production queue has."
        self.fields["team"].choices = _teams(user)

    def request_fields(self) -> dict:
        data = dict(self.cleaned_data)
        data["command"] = tuple(line for line in data["command"].splitlines() if line.strip())
        return data
