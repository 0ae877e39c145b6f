"""Representations for /api/v1/whatif/. Rule checks live in the services."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.whatif.models import WhatIfRun
from core.api_fields import ModelSerializer
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
