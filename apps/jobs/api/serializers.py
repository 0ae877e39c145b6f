"""API bodies of notebooks and jobs. Input serializers accept only the fields users choose."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.jobs.choices import NotebookState
from apps.jobs.models import BatchJob, JobEvent, Notebook, Sweep
from apps.jobs.services.jobs import JobRequest
from core.api_fields import ModelSerializer, UtcDateTimeField
from core.errors import CODES
from core.strict_input import RejectUnknownFields


class StrictSerializer(RejectUnknownFields, serializers.Serializer):
    """Unknown fields are an error: nobody slips pod-spec fields past the form."""


class NotebookCreateSerializer(StrictSerializer):
    image = serializers.CharField(max_length=500)
    flavor = serializers.CharField(max_length=253)
    gpus = serializers.IntegerField(min_value=0, max_value=64, default=1)
    profile = serializers.CharField(max_length=63, required=False, default="")
    ttl_hours = serializers.IntegerField(min_value=0, max_value=10_000, required=False)
    team = serializers.CharField(max_length=63, required=False, default="")
    namespace = serializers.CharField(max_length=63, required=False, default="")
    display_name = serializers.CharField(max_length=100, required=False, default="")
    user = serializers.CharField(
        max_length=150,
        required=False,
        default="",
        help_text="Launcher tokens only: the username the notebook is for (audited).",
    )


class RenewSerializer(StrictSerializer):
    hours = serializers.IntegerField(min_value=0, max_value=10_000, required=False)


class NotebookSerializer(ModelSerializer):
    owner = serializers.CharField(source="owner.username")
    requested_by = serializers.CharField(source="requested_by.username")
    team = serializers.CharField(source="team.slug")
    flavor = serializers.CharField(source="flavor.name")
    profile = serializers.CharField(source="profile.name")
    url = serializers.SerializerMethodField()
    expiry_warning = serializers.SerializerMethodField()
    idle_warning = serializers.SerializerMethodField()

    class Meta:
        model = Notebook
        fields = [
            "id",
            "name",
            "display_name",
            "owner",
            "requested_by",
            "team",
            "namespace",
            "state",
            "state_reason",
            "pending_reason",
            "queue_position",
            "url",
            "image",
            "flavor",
            "gpus",
            "cpu",
            "memory",
            "profile",
            "created_at",
            "ready_at",
            "expires_at",
            "expiry_warning",
            "idle_warning",
            "ended_at",
        ]

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_url(self, notebook: Notebook) -> str | None:
        return notebook.url if notebook.state in NotebookState.running_values() else None

    def get_expiry_warning(self, notebook: Notebook) -> bool:
        return notebook.expiry_warned_at is not None and notebook.is_active

    def get_idle_warning(self, notebook: Notebook) -> bool:
        return notebook.idle_warned_at is not None and notebook.is_active


class JobCreateSerializer(StrictSerializer):
    template = serializers.CharField(max_length=63)
    flavor = serializers.CharField(max_length=253)
    gpus_per_pod = serializers.IntegerField(min_value=0, max_value=1024, default=1)
    pods = serializers.IntegerField(min_value=0, max_value=10_000, default=1)
    priority_tier = serializers.CharField(max_length=63, required=False, default="")
    max_runtime_minutes = serializers.IntegerField(min_value=0, max_value=10**7, default=60)
    command = serializers.ListField(
        child=serializers.CharField(max_length=4096, allow_blank=True),
        required=False,
        max_length=64,
    )
    image = serializers.CharField(max_length=500, required=False, default="")
    checkpoint_dir = serializers.CharField(max_length=255, required=False, default="")
    checkpoint_interval_minutes = serializers.IntegerField(
        min_value=0, max_value=10**7, required=False
    )
    team = serializers.CharField(max_length=63, required=False, default="")
    namespace = serializers.CharField(max_length=63, required=False, default="")
    queue = serializers.CharField(max_length=63, required=False, default="")
    display_name = serializers.CharField(max_length=100, required=False, default="")
    sim_duration_seconds = serializers.IntegerField(
        min_value=1,
        max_value=10**7,
        required=False,
        help_text="Demo clusters only: how long the simulated job runs.",
    )
    topology = serializers.CharField(
        max_length=63,
        required=False,
        default="",
        help_text="Keep every pod in one domain of this topology level of the flavor "
        "(e.g. rack); empty: anywhere.",
    )
    topology_mode = serializers.CharField(
        max_length=20,
        required=False,
        default="",
        help_text="required (default with a topology: wait for one domain with room) or "
        "preferred (spread if none has room).",
    )


class StartEstimateSerializer(serializers.Serializer):
    p50 = UtcDateTimeField(allow_null=True)
    p90 = UtcDateTimeField(allow_null=True, help_text="Null: not within 14 days.")


class ExpectedCostSerializer(serializers.Serializer):
    usd = serializers.FloatField()
    gpu_hours = serializers.FloatField()
    usd_per_gpu_hour = serializers.FloatField()
    price_source = serializers.CharField(
        help_text="`opencost, report <week>` or `price-table, report <week>` (the newest "
        "weekly report's price), or `price-table` (the portal's table now)."
    )
    run_hours = serializers.FloatField()
    run_time_basis = serializers.ChoiceField(
        choices=["recorded_p50", "max_runtime"],
        help_text="`recorded_p50`: the median of the template and team's recorded runs (at "
        "most the maximum run time); `max_runtime`: none recorded, so the maximum run time.",
    )
    runs_recorded = serializers.IntegerField()


class PreemptionRiskSerializer(serializers.Serializer):
    by_policy = serializers.ListField(
        child=serializers.CharField(),
        help_text="Who could preempt it once running, by Kueue's preemption settings of its "
        "queue and its cohort; empty: nobody.",
    )
    policy_summary = serializers.CharField(help_text="`by_policy` in one line, or why nobody.")
    tier = serializers.CharField(
        allow_null=True, help_text="The priority tier whose history gives the rate."
    )
    scope = serializers.CharField(help_text="Whose recorded work the rate counts, and how long.")
    preemptions = serializers.IntegerField(
        allow_null=True, help_text="Preemptions recorded in `scope`."
    )
    admitted_hours = serializers.FloatField(
        allow_null=True, help_text="Hours the work of `scope` was admitted."
    )
    rate_per_hour = serializers.FloatField(
        allow_null=True,
        help_text="`preemptions` ÷ `admitted_hours`; null with no admitted hours (see `note`).",
    )
    run_hours = serializers.FloatField(allow_null=True)
    run_time_basis = serializers.ChoiceField(
        choices=["recorded_p50", "max_runtime"], help_text="As in `expected_cost`."
    )
    probability = serializers.FloatField(
        allow_null=True,
        help_text="P(at least one preemption over `run_hours`) = 1 − exp(−rate × run_hours); "
        "0 when nobody may preempt it; null when there is no rate (see `note`).",
    )
    note = serializers.CharField(help_text="How `probability` was found, or why there is none.")


class JobQuoteRequestSerializer(JobCreateSerializer):
    kind = serializers.ChoiceField(
        choices=["job"], required=False, help_text="`job` (the default): a batch job's body."
    )


class NotebookQuoteRequestSerializer(NotebookCreateSerializer):
    kind = serializers.ChoiceField(
        choices=["notebook"], help_text="`notebook`: a notebook request's body."
    )


def job_request(body) -> JobRequest:
    """The ``JobRequest`` of a job's body (the API's and ``manage.py quote``'s); a bad body
    raises DRF's ``ValidationError`` or ``unknown_field``."""
    parsed = JobCreateSerializer(data=body)
    parsed.is_valid(raise_exception=True)
    return job_request_from(dict(parsed.validated_data))


def job_request_from(data: dict) -> JobRequest:
    """The ``JobRequest`` of a job body's validated fields (a sweep's, its own taken out)."""
    if "command" in data:
        data["command"] = tuple(data["command"])
    return JobRequest(**data)


class SweepCreateSerializer(JobCreateSerializer):
    """A job body run once per trial; give ``parameters`` or ``grid``."""

    parameters = serializers.ListField(
        child=serializers.DictField(),
        required=False,
        max_length=10_000,
        help_text='One object per trial, e.g. `[{"lr": "0.1"}, {"lr": "0.01"}]`; each '
        "trial's command gets `--name=value` per parameter. At most 500 trials.",
    )
    grid = serializers.DictField(
        child=serializers.ListField(max_length=10_000),
        required=False,
        help_text='Values per name, e.g. `{"lr": ["0.1", "0.01"], "seed": [1, 2]}`: one trial '
        "per combination. At most 500 trials.",
    )
    concurrency_limit = serializers.IntegerField(
        min_value=0,
        max_value=10_000,
        required=False,
        help_text="Trials held at once (created, queued or running); at most the team's "
        "limit per user, which is the default.",
    )


class SweepProgressSerializer(serializers.Serializer):
    done = serializers.IntegerField()
    running = serializers.IntegerField()
    waiting = serializers.IntegerField(help_text="Not released yet, or released and queued.")
    failed = serializers.IntegerField()
    cancelled = serializers.IntegerField()


class SweepSerializer(ModelSerializer):
    owner = serializers.CharField(source="owner.username")
    team = serializers.CharField(source="team.slug")
    template = serializers.CharField(source="template.name")
    trials = serializers.IntegerField(source="trial_count")
    progress = serializers.SerializerMethodField()

    class Meta:
        model = Sweep
        fields = [
            "id",
            "display_name",
            "owner",
            "team",
            "template",
            "state",
            "state_reason",
            "trials",
            "concurrency_limit",
            "progress",
            "created_at",
            "ended_at",
        ]

    @extend_schema_field(SweepProgressSerializer)
    def get_progress(self, sweep: Sweep) -> dict:
        return SweepProgressSerializer(sweep.progress()).data


class TrialSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    parameters = serializers.DictField(child=serializers.CharField())
    job = serializers.IntegerField(
        source="job.id", allow_null=True, default=None, help_text="The trial's latest run."
    )
    state = serializers.CharField(source="job.state", default="unreleased")
    runs = serializers.IntegerField(help_text="Runs released so far: 2 or more once retried.")
    retrying = serializers.BooleanField(help_text="Queued to run again, not released yet.")


class SweepDetailSerializer(SweepSerializer):
    trial_list = TrialSerializer(source="trial_rows", many=True)

    class Meta(SweepSerializer.Meta):
        fields = [*SweepSerializer.Meta.fields, "trial_list"]


class SweepLimitSerializer(StrictSerializer):
    """A team's sweep limit: ``per_user`` (its lead's) within ``max_per_user`` (an admin's)."""

    per_user = serializers.IntegerField(
        min_value=0,
        max_value=10_000,
        required=False,
        help_text="Trials one member may hold at once over all their sweeps in the team; "
        "leads set it, 1–max_per_user.",
    )
    max_per_user = serializers.IntegerField(
        min_value=0,
        max_value=10_000,
        required=False,
        help_text="The envelope: the most per_user may be. Platform admins only, 1–100.",
    )


class QuoteSerializer(serializers.Serializer):
    """What would happen to a job submitted now (``apps.jobs.verdict``)."""

    verdict = serializers.ChoiceField(
        choices=["never", "now", "later"],
        help_text="`never`: no state of the queues could admit it; `now`: it would be "
        "admitted at once; `later`: it would wait.",
    )
    summary = serializers.CharField(
        help_text="The verdict in plain words: the limit and "
        "what to change (`never`), the flavor and any preemption (`now`), the wait reason."
    )
    field = serializers.CharField(
        allow_null=True, help_text="`never` only: the input that asks too much."
    )
    flavors = serializers.DictField(
        child=serializers.DictField(child=serializers.CharField()),
        help_text="`now` only: podSet → {resource: flavor} Kueue would assign.",
    )
    borrows = serializers.BooleanField(help_text="`now` only: it would use borrowed quota.")
    preempts = serializers.ListField(
        child=serializers.CharField(),
        help_text="`now` only: `namespace/name` of the workloads it would preempt that you "
        "may see.",
    )
    preempts_hidden = serializers.IntegerField(
        help_text="`now` only: how many workloads of other teams it would preempt."
    )
    pending_reason = serializers.CharField(help_text="`later` only: Kueue's reason to wait.")
    estimated_start = StartEstimateSerializer(
        allow_null=True,
        help_text="`later` only: when it would start if the running and queued workloads "
        "ran their recorded median (`p50`) or 90th-percentile (`p90`) run times; null "
        "when no start is found (see `estimate_note`).",
    )
    estimate_note = serializers.CharField(
        help_text="`later` only: what the estimate assumed, or why there is none."
    )
    expected_cost = ExpectedCostSerializer(
        allow_null=True,
        help_text="`now` and `later`: GPUs × expected run time × the flavor's price; null "
        "when the flavor has no price (see `cost_note`).",
    )
    cost_note = serializers.CharField(help_text="Why there is no expected cost.")
    preemption_risk = PreemptionRiskSerializer(
        allow_null=True,
        help_text="`now` and `later`: who could preempt it once running, and how likely that "
        "is over its expected run time from its tier's recorded preemption rate.",
    )


class JobEventSerializer(ModelSerializer):
    class Meta:
        model = JobEvent
        fields = ["at", "kind", "reason", "message", "preemptor", "lost_gpu_minutes"]


class JobSerializer(ModelSerializer):
    owner = serializers.CharField(source="owner.username")
    team = serializers.CharField(source="team.slug")
    queue = serializers.CharField(source="queue.name")
    flavor = serializers.CharField(source="flavor.name")
    priority_tier = serializers.CharField(source="priority_tier.name")
    total_gpus = serializers.IntegerField()

    class Meta:
        model = BatchJob
        fields = [
            "id",
            "name",
            "display_name",
            "owner",
            "team",
            "namespace",
            "queue",
            "state",
            "state_reason",
            "pending_reason",
            "queue_position",
            "image",
            "command",
            "flavor",
            "gpus_per_pod",
            "pods",
            "total_gpus",
            "priority_tier",
            "max_runtime_seconds",
            "checkpoint_dir",
            "checkpoint_interval_seconds",
            "topology_level",
            "topology_mode",
            "created_at",
            "admitted_at",
            "ended_at",
        ]


class JobDetailSerializer(JobSerializer):
    events = JobEventSerializer(many=True)

    class Meta(JobSerializer.Meta):
        fields = [*JobSerializer.Meta.fields, "events"]


class ErrorSerializer(serializers.Serializer):
    """Every API error body (``core.api_errors``); some codes add keys."""

    # A string, not an enum: DRF's own codes (``parse_error``, ``throttled``, …) come
    # on top of the domain's table listed here.
    code = serializers.CharField(
        help_text="Machine-readable; the domain's codes are: "
        + "; ".join(
            f"`{code}` ({row.status}) {row.meaning}" for code, row in sorted(CODES.items())
        ),
    )
    detail = serializers.CharField(help_text="For people.")
    field = serializers.CharField(allow_null=True, help_text="The input field at fault, or null.")
