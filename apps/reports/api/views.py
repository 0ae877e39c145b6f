"""Reports API: the stored weekly snapshots, narrowed to the caller's teams."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import viewsets
from rest_framework.decorators import action
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.reports import period
from apps.reports.compute.level_changes import LEVELS
from apps.reports.models import WeeklyReport
from apps.reports.ranges import CUSTOM, EXAMPLE, PRESETS
from apps.reports.views import scoped_levels, scoped_report, team_slugs
from apps.reports.visibility import scoped_totals
from core.api_fields import ModelSerializer
from core.dates import iso_z


class WeekSerializer(ModelSerializer):
    class Meta:
        model = WeeklyReport
        fields = ["week", "built_at"]


# Up to 52 weeks, oldest first, in the caller's scope: admins see the cluster's totals
# (scope "cluster"), members their teams' GPU-hours and each team's own p95 wait ("teams").
TREND = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["week", "visible_gpu_hours", "by_team", "scope", "period"],
        "properties": {
            "week": {"type": "string"},
            "visible_gpu_hours": {"type": "number"},
            "by_team": {"type": "object", "additionalProperties": {"type": "number"}},
            "scope": {"type": "string", "enum": ["cluster", "teams"]},
            "scope_teams": {"type": "array", "items": {"type": "string"}},
            "used_gpu_hours": {"type": "number", "nullable": True},
            "lost_gpu_hours": {"type": "number", "nullable": True},
            "wait_p95": {"type": "number", "nullable": True},
            "wait_p95_by_team": {
                "type": "object",
                "additionalProperties": {"type": "number", "nullable": True},
            },
            "period": {
                "type": "object",
                "required": ["covered_hours", "week_hours", "in_progress"],
                "properties": {
                    "covered_hours": {"type": "number"},
                    "week_hours": {"type": "number"},
                    "in_progress": {"type": "boolean"},
                },
            },
        },
    },
}


class WeeklyReportViewSet(viewsets.ReadOnlyModelViewSet):
    """``/api/v1/reports/`` lists stored weeks; ``/api/v1/reports/2026-W47/`` is one report."""

    serializer_class = WeekSerializer
    lookup_field = "week"
    lookup_value_regex = r"\d{4}-W\d{2}"

    def get_queryset(self):
        return WeeklyReport.objects.visible_to(self.request.user).only("week", "built_at")

    def retrieve(self, request, week=None):
        report = scoped_report(request, week)
        return Response({"week": week, **report, "built_at": iso_z(report["built_at"])})

    @extend_schema(responses={200: TREND})
    @action(detail=False)
    def trend(self, request):
        teams = team_slugs(request.user)
        rows = self.get_queryset().values_list("week", "totals", "data__period")[:52]
        return Response(
            [
                {"week": w, **scoped_totals(t, teams), "period": period.of({"period": covered})}
                for w, t, covered in reversed(rows)
            ]
        )


LEVEL_VALUES = {"type": "array", "items": {"type": "integer"}}
USAGE = {
    "type": "object",
    "required": ["range", "from", "to", "step_seconds", "scope", "times", "teams"],
    "properties": {
        "range": {"type": "string", "enum": [*PRESETS, CUSTOM]},
        "from": {"type": "string", "format": "date-time"},
        "to": {"type": "string", "format": "date-time"},
        "step_seconds": {"type": "integer"},
        "scope": {"type": "string", "enum": ["cluster", "teams"]},
        "times": {"type": "array", "items": {"type": "string", "format": "date-time"}},
        "teams": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["team", *LEVELS],
                "properties": {"team": {"type": "string"}, **dict.fromkeys(LEVELS, LEVEL_VALUES)},
            },
        },
    },
}
RANGE_PARAMETERS = [
    OpenApiParameter("range", str, enum=[*PRESETS, CUSTOM], description="default 24h"),
    OpenApiParameter("from", str, description=f"with range=custom: ISO 8601, e.g. {EXAMPLE}"),
    OpenApiParameter(
        "to", str, description="with range=custom: ISO 8601, at most 90 days after from"
    ),
]


class UsageView(APIView):
    """``/api/v1/usage/?range=7d``: each visible team's GPUs in use and queue over a range,
    one value per step (at most 500 steps), from the recorded history. A plain view, not
    a viewset's ``list``: the answer is one object, which the schema would call a list."""

    @extend_schema(parameters=RANGE_PARAMETERS, responses={200: USAGE})
    def get(self, request):
        return Response(scoped_levels(request))
