"""Inference service endpoints: list, read, request, stop (docs/inference.md)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.response import Response

from apps.jobs.api.serializers import StrictSerializer
from apps.jobs.api.views import ERRORS, IDEMPOTENCY, created, idempotency_key, parse, principal
from apps.jobs.models import InferenceService
from apps.jobs.services.inference import (
    InferenceRequest,
    request_inference_service,
    stop_inference_service,
)
from core.api_fields import ModelSerializer
from core.visibility import VisibleMixin


class InferenceCreateSerializer(StrictSerializer):
    flavor = serializers.CharField(max_length=253)
    image = serializers.CharField(max_length=500)
    replicas = serializers.IntegerField(min_value=0, max_value=10_000, default=1)
    gpus_per_replica = serializers.IntegerField(min_value=0, max_value=1024, default=1)
    command = serializers.ListField(
        child=serializers.CharField(max_length=4096, allow_blank=True),
        required=False,
        max_length=64,
    )
    priority_tier = serializers.CharField(
        max_length=63, required=False, default="", help_text="An inference-only tier."
    )
    team = serializers.CharField(max_length=63, required=False, default="")
    namespace = serializers.CharField(max_length=63, required=False, default="")
    queue = serializers.CharField(
        max_length=63, required=False, default="", help_text="One of the team's production queues."
    )
    display_name = serializers.CharField(max_length=100, required=False, default="")


class InferenceServiceSerializer(ModelSerializer):
    owner = serializers.CharField(source="owner.username")
    team = serializers.CharField(source="team.slug")
    queue = serializers.CharField(source="queue.name")
    flavor = serializers.CharField(source="flavor.name")
    priority_tier = serializers.CharField(source="priority_tier.name")
    total_gpus = serializers.IntegerField()

    class Meta:
        model = InferenceService
        fields = [
            "id", "name", "display_name", "owner", "team", "namespace", "queue", "state",
            "state_reason", "pending_reason", "image", "command", "flavor", "replicas",
            "ready_replicas", "gpus_per_replica", "total_gpus", "priority_tier", "created_at",
            "serving_since", "ended_at",
        ]  # fmt: skip


def inference_request(data: dict) -> InferenceRequest:
    if "command" in data:
        data["command"] = tuple(data["command"])
    return InferenceRequest(**data)


class InferenceServiceViewSet(
    VisibleMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    viewsets.GenericViewSet,
):
    """Inference services: replicas admitted all together in a production queue, at an
    inference-only tier; ``?team=`` narrows to one team."""

    base_queryset = InferenceService.objects.with_related()
    serializer_class = InferenceServiceSerializer

    def get_queryset(self):
        queryset = super().get_queryset()
        if team := self.request.query_params.get("team"):
            queryset = queryset.filter(team__slug=team)
        return queryset

    @extend_schema(
        request=InferenceCreateSerializer,
        parameters=[IDEMPOTENCY],
        responses={201: InferenceServiceSerializer, **ERRORS},
    )
    def create(self, request):
        spec = inference_request(dict(parse(InferenceCreateSerializer, request.data)))
        submission = request_inference_service(
            request.user,
            spec,
            actor=principal(request),
            idempotency_key=idempotency_key(request),
        )
        body = InferenceServiceSerializer(submission.record).data
        return created(body, submission.replayed)

    @extend_schema(responses={204: None, **ERRORS})
    def destroy(self, request, pk=None):
        stop_inference_service(self.get_object(), actor=principal(request))
        return Response(status=status.HTTP_204_NO_CONTENT)
