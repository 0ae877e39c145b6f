"""Reports API: the stored weekly snapshots, narrowed to the caller's teams."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from apps.reports import period
from apps.reports.models import WeeklyReport
from apps.reports.views import scoped_report, team_slugs
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
