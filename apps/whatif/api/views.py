"""API of what-if runs and ETAs: parse, authorize, call one service, render."""

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action, api_view
from rest_framework.response import Response

from apps.queues.api.serializers import ChangeRequestSerializer
from apps.whatif import services, start_predictions
from apps.whatif.api import serializers as s
from apps.whatif.models import PolicySuggestion, WhatIfRun
from apps.whatif.suggestion_services import dismiss_suggestion
from core.kube import KubeError
from core.visibility import VisibleMixin


class WhatIfRunViewSet(
    VisibleMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    viewsets.GenericViewSet,
):
    base_queryset = WhatIfRun.objects.select_related("requested_by")
    serializer_class = s.WhatIfRunSerializer

    @extend_schema(request=s.WhatIfRequestSerializer, responses={202: s.WhatIfRunSerializer})
    def create(self, request):
        body = s.WhatIfRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        run = services.request_whatif(actor=request.user, **body.validated_data)
        return Response(s.WhatIfRunSerializer(run).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(request=s.ApplySerializer, responses={200: dict})
    @action(detail=True, methods=["post"])
    def apply(self, request, pk=None):
        body = s.ApplySerializer(data=request.data)
        body.is_valid(raise_exception=True)
        outcomes = services.apply_whatif(
            self.get_object(), actor=request.user, **body.validated_data
        )
        return Response({"queues": [_outcome(o) for o in outcomes]})


@extend_schema_view(list=extend_schema(parameters=[s.SuggestionQuerySerializer]))
class PolicySuggestionViewSet(
    mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet
):
    """Policy suggestions as the page lists them: leads their teams', admins all."""

    def get_serializer_class(self):
        if self.action == "list":
            return s.PolicySuggestionSerializer
        return s.PolicySuggestionDetailSerializer

    def get_queryset(self):
        # shown_to, not VisibleMixin's visible_to: leads do not see drafts the cluster refused.
        shown = PolicySuggestion.objects.shown_to(self.request.user).select_related(
            "queue__team", "whatif_run", "dismissed_by"
        )
        if self.action != "list":
            return shown
        query = s.SuggestionQuerySerializer(data=self.request.query_params)
        query.is_valid(raise_exception=True)
        if team := query.validated_data.get("team"):
            shown = shown.filter(queue__team__slug=team)
        if state := query.validated_data.get("state"):
            shown = shown.filter(state=state)
        return shown

    @extend_schema(request=s.DismissSerializer, responses={200: s.PolicySuggestionDetailSerializer})
    @action(detail=True, methods=["post"])
    def dismiss(self, request, pk=None):
        body = s.DismissSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        suggestion = self.get_object()
        dismiss_suggestion(suggestion, actor=request.user, **body.validated_data)
        suggestion.refresh_from_db()
        return Response(s.PolicySuggestionDetailSerializer(suggestion).data)


def _outcome(outcome) -> dict:
    request = outcome.change_request
    return {
        "queue": outcome.queue.name,
        "applied": outcome.applied,
        "changes": outcome.changes,
        "change_request": ChangeRequestSerializer(request).data if request else None,
    }


@extend_schema(parameters=[s.EtaQuerySerializer], responses={200: dict})
@api_view(["GET"])
def eta(request):
    """Predicted start of a pending workload, with the historical accuracy of predictions."""
    query = s.EtaQuerySerializer(data=request.query_params)
    query.is_valid(raise_exception=True)
    namespace, workload = query.validated_data["namespace"], query.validated_data["workload"]
    try:
        answer = start_predictions.predict_start(namespace, workload, actor=request.user)
    except KubeError as exc:
        # A prediction is advice: without the cluster there is none, and that is the answer.
        return Response(
            {"namespace": namespace, "workload": workload, "state": "unavailable",
             "predicted_start": None, "detail": exc.describe()}
        )  # fmt: skip
    return Response(answer.as_dict())
