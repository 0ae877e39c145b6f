"""Representations for /api/v1/whatif/. Rule checks live in the services."""

from rest_framework import serializers

from apps.whatif.models import WhatIfRun
from core.api_fields import ModelSerializer
from core.strict_input import RejectUnknownFields


class WhatIfRequestSerializer(RejectUnknownFields, serializers.Serializer):
    """Body of POST /whatif/: ``draft`` maps queue names to proposals (as PUT /queues/{id}/)."""

    draft = serializers.DictField(child=serializers.DictField())
    days = serializers.IntegerField(required=False, min_value=1, max_value=90)
    reason = serializers.CharField(required=False, allow_blank=True, default="")


class WhatIfRunSerializer(ModelSerializer):
    requested_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    progress_percent = serializers.IntegerField(read_only=True)

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
            "error",
            "finished_at",
        ]


class ApplySerializer(RejectUnknownFields, serializers.Serializer):
    reason = serializers.CharField(required=False, allow_blank=True, default="")


class EtaQuerySerializer(serializers.Serializer):
    namespace = serializers.CharField()
    workload = serializers.CharField()
