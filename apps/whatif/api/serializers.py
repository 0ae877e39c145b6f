"""Representations for /api/v1/whatif/ and /api/v1/suggestions/. Rule checks live in the
services."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.whatif.choices import SuggestionState
from apps.whatif.models import PolicySuggestion, WhatIfRun
from apps.whatif.suggestion_figures import whatif_figures
from core.api_fields import ModelSerializer, UtcDateTimeField
from core.strict_input import RejectUnknownFields


class WhatIfRequestSerializer(RejectUnknownFields, serializers.Serializer):
    """Body of POST /whatif/: ``draft`` maps queue names to proposals (as PUT /queues/{id}/)."""

    draft = serializers.DictField(child=serializers.DictField())
    days = serializers.IntegerField(required=False, min_value=1, max_value=90)
    reason = serializers.CharField(required=False, allow_blank=True, default="")


class MoneyFiguresSerializer(serializers.Serializer):
    """GPU-hours, and dollars at the report's prices (null: no price for the flavor,
    or, summed, for none of them)."""

    idle_reserved_gpu_hours = serializers.FloatField()
    idle_reserved_usd = serializers.FloatField(allow_null=True)
    lost_gpu_hours = serializers.FloatField()
    lost_usd = serializers.FloatField(allow_null=True)
    borrowed_gpu_hours = serializers.FloatField()
    borrowed_usd = serializers.FloatField(allow_null=True)
    cost_usd = serializers.FloatField(allow_null=True, help_text="idle + lost + borrowed")


class MoneySidesSerializer(serializers.Serializer):
    current = MoneyFiguresSerializer()
    proposed = MoneyFiguresSerializer()
    change = MoneyFiguresSerializer(help_text="proposed − current")


class FlavorMoneySerializer(MoneySidesSerializer):
    flavor = serializers.CharField()
    usd_per_gpu_hour = serializers.FloatField(allow_null=True)


class TeamMoneySerializer(MoneySidesSerializer):
    team = serializers.CharField()
    flavors = FlavorMoneySerializer(many=True)
    unpriced_flavors = serializers.ListField(child=serializers.CharField())


class FlavorPriceSerializer(serializers.Serializer):
    flavor = serializers.CharField()
    usd_per_gpu_hour = serializers.FloatField()
    source = serializers.CharField(help_text="opencost or price-table")


class WhatIfMoneySerializer(serializers.Serializer):
    """Idle reserved quota, work lost to preemption and borrowing, now and with the draft."""

    teams = TeamMoneySerializer(many=True)
    total = MoneySidesSerializer()
    unpriced_flavors = serializers.ListField(child=serializers.CharField())
    hours = serializers.FloatField(help_text="the replayed window's hours")
    prices = FlavorPriceSerializer(many=True)


class WhatIfRunSerializer(ModelSerializer):
    requested_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    progress_percent = serializers.IntegerField(read_only=True)
    money = serializers.SerializerMethodField()

    @extend_schema_field(WhatIfMoneySerializer(allow_null=True))
    def get_money(self, run: WhatIfRun) -> dict | None:
        """Null until the run is done (and for runs stored before money was counted)."""
        return (run.result or {}).get("money")

    class Meta:
        model = WhatIfRun
        fields = [
            "id",
            "requested_by",
            "created_at",
            "status",
            "progress_percent",
            "replays_done",
            "replays_total",
            "draft",
            "changes",
            "reason",
            "days",
            "window_start",
            "window_end",
            "fair_sharing",
            "result",
            "money",
            "error",
            "finished_at",
        ]


class ApplySerializer(RejectUnknownFields, serializers.Serializer):
    reason = serializers.CharField(required=False, allow_blank=True, default="")


class EtaQuerySerializer(serializers.Serializer):
    namespace = serializers.CharField()
    workload = serializers.CharField()


class SuggestionQuerySerializer(serializers.Serializer):
    """Filters of GET /suggestions/: ``?team=vision``, ``?state=offered``; empty: no filter
    (DRF reads an empty query value of an optional field as absent, so the schema says so)."""

    team = serializers.CharField(required=False, allow_blank=True)
    state = serializers.ChoiceField(
        choices=SuggestionState.choices, required=False, allow_blank=True
    )


class DryRunSerializer(serializers.Serializer):
    accepted = serializers.BooleanField(help_text="the cluster's dryRun=All accepted the draft")
    message = serializers.CharField(help_text="the refusal, or why it was not checked")
    checked_at = UtcDateTimeField()


class SuggestionWhatIfSerializer(serializers.Serializer):
    """The what-if the portal started for the draft: progress, then its figures and money."""

    id = serializers.IntegerField()
    status = serializers.CharField()
    progress_percent = serializers.IntegerField()
    figures = serializers.DictField(
        allow_null=True, help_text="per team: verdict, p95 wait, GPU-hours, preemptions"
    )
    money = WhatIfMoneySerializer(allow_null=True)


class PolicySuggestionSerializer(ModelSerializer):
    queue = serializers.SlugRelatedField(slug_field="name", read_only=True)
    team = serializers.SlugRelatedField(source="queue.team", slug_field="slug", read_only=True)
    dismissed_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    can_apply = serializers.BooleanField(read_only=True)

    class Meta:
        model = PolicySuggestion
        fields = ["id", "kind", "title", "team", "queue", "flavor", "weeks", "state",
                  "can_apply", "created_at", "checked_at", "whatif_run",
                  "dismissed_at", "dismissed_by", "dismissed_reason"]  # fmt: skip


class PolicySuggestionDetailSerializer(PolicySuggestionSerializer):
    """One suggestion with its evidence, draft, dry-run result and what-if figures."""

    dry_run = serializers.SerializerMethodField()
    whatif = serializers.SerializerMethodField()

    class Meta(PolicySuggestionSerializer.Meta):
        fields = [*PolicySuggestionSerializer.Meta.fields, "evidence", "proposal", "dry_run",
                  "whatif"]  # fmt: skip

    @extend_schema_field(DryRunSerializer)
    def get_dry_run(self, suggestion: PolicySuggestion) -> dict:
        return DryRunSerializer(
            {
                "accepted": not suggestion.refusal,
                "message": suggestion.refusal,
                "checked_at": suggestion.checked_at,
            }  # fmt: skip
        ).data

    @extend_schema_field(SuggestionWhatIfSerializer(allow_null=True))
    def get_whatif(self, suggestion: PolicySuggestion) -> dict | None:
        """Null until a what-if is started; figures and money null until it is done."""
        run = suggestion.whatif_run
        if run is None:
            return None
        result = run.result or {}
        return {
            "id": run.pk,
            "status": run.status,
            "progress_percent": run.progress_percent,
            "figures": whatif_figures(result) if result else None,
            "money": result.get("money"),
        }


class DismissSerializer(RejectUnknownFields, serializers.Serializer):
    reason = serializers.CharField(required=False, allow_blank=True, default="")
