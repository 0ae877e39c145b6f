"""Report pages: read a stored snapshot, narrow it to the viewer's teams, render."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone

from apps.accounts.authentication import token_or_login_required
from apps.reports import charts, freshness, gaps, period, ranges
from apps.reports.compute.weeks import parse_week, previous_weeks
from apps.reports.exports import csv_rows
from apps.reports.forms import RangeForm
from apps.reports.glossary import TERMS
from apps.reports.level_history import level_series
from apps.reports.models import WeeklyReport
from apps.reports.querysets import visible_team_ids
from apps.reports.visibility import scoped, scoped_totals
from core import permissions
from core.csv_export import csv_response
from core.dates import iso_z
from core.errors import InvalidInput
from core.pages import add_to_form

TREND_WEEKS = 52


def team_slugs(user) -> set[str] | None:
    from apps.queues.models import Team

    ids = visible_team_ids(user)
    return (
        None if ids is None else set(Team.objects.filter(pk__in=ids).values_list("slug", flat=True))
    )


def scoped_report(request: HttpRequest, week: str) -> dict:
    """The stored report of ``week`` as the viewer may see it; 404 when absent or malformed.

    Only platform admins read why data is missing (addresses, queries); others read
    which source was missing."""
    try:
        parse_week(week)
    except ValueError:
        raise Http404("not an ISO week") from None
    snapshot = WeeklyReport.objects.visible_to(request.user).filter(week=week).first()
    if snapshot is None:
        raise Http404("no report stored for this week")
    report = scoped(snapshot.data, team_slugs(request.user))
    with_reasons = permissions.is_admin(request.user)
    return {
        **report,
        "built_at": snapshot.built_at,
        "gaps": gaps.for_viewer(report["gaps"], with_reasons=with_reasons),
    }


def build_stamp(week: str, built_at) -> freshness.Stamp:
    every = timedelta(minutes=settings.QM_REPORT_REBUILD_MINUTES)
    return freshness.stamp(week, built_at, now=timezone.now(), every=every)


def _empty(request: HttpRequest) -> HttpResponse:
    context = {"rebuild_minutes": settings.QM_REPORT_REBUILD_MINUTES}
    return render(request, "reports/empty.html", context)


@login_required
def index(request: HttpRequest) -> HttpResponse:
    latest = WeeklyReport.objects.visible_to(request.user).values_list("week", flat=True).first()
    if latest:
        return redirect("reports:week", week=latest)
    return _empty(request)


@login_required
def week_page(request: HttpRequest, week: str) -> HttpResponse:
    report = scoped_report(request, week)
    context = {
        "week": week,
        "report": report,
        "charts": {
            "cdf": charts.wait_cdf(report),
            "usage": charts.usage_vs_quota(report),
            "losses": charts.preemption_losses(report),
            "pairs": charts.who_preempted_whom(report),
            "cost": charts.cost_breakdown(report),
        },
        "weeks": WeeklyReport.objects.visible_to(request.user).values_list("week", flat=True)[:60],
        "stamp": build_stamp(week, report["built_at"]),
        "so_far": period.so_far(report),
        # Leads and admins get the policy suggestions drawn from these reports.
        "can_suggest": permissions.can_run_whatif(request.user),
    }
    return render(request, "reports/week.html", context)


@token_or_login_required
def week_json(request: HttpRequest, week: str) -> JsonResponse:
    report = scoped_report(request, week)
    response = JsonResponse({"week": week, **report, "built_at": iso_z(report["built_at"])})
    response["Content-Disposition"] = f'attachment; filename="report-{week}.json"'
    return response


@token_or_login_required
def week_csv(request: HttpRequest, week: str) -> StreamingHttpResponse:
    return csv_response(csv_rows(week, scoped_report(request, week)), f"report-{week}.csv")


@login_required
def glossary(request: HttpRequest) -> HttpResponse:
    return render(request, "reports/glossary.html", {"terms": TERMS})


@login_required
def trend(request: HttpRequest) -> HttpResponse:
    latest = WeeklyReport.objects.visible_to(request.user).values_list("week", flat=True).first()
    if latest is None:
        return _empty(request)
    teams = team_slugs(request.user)
    stored = {
        week: (totals, {"period": covered})
        for week, totals, covered in WeeklyReport.objects.filter(
            week__in=previous_weeks(latest, TREND_WEEKS)
        ).values_list("week", "totals", "data__period")
    }
    weeks = [(w, scoped_totals(stored[w][0], teams)) for w in sorted(stored)]
    so_far = {w: period.so_far(stored[w][1]) for w in stored}
    built_at = WeeklyReport.objects.filter(week=latest).values_list("built_at", flat=True).get()
    context = {
        "wait_headings": [heading for heading, _ in charts.trend_wait_columns(weeks)],
        "rows": trend_rows(weeks, so_far),
        "scope_teams": None if teams is None else sorted(teams),
        "chart": charts.trend(weeks, so_far),
        "stamp": build_stamp(latest, built_at),
    }
    return render(request, "reports/trend.html", context)


def trend_rows(weeks: list[tuple[str, dict]], so_far: dict[str, str]) -> list[tuple]:
    """(week, "so far …" or "", totals, that week's p95 waits in
    ``charts.trend_wait_columns`` order) per row."""
    columns = [values for _, values in charts.trend_wait_columns(weeks)]
    return [
        (week, so_far.get(week, ""), t, [values[i] for values in columns])
        for i, (week, t) in enumerate(weeks)
    ]


def scoped_levels(request: HttpRequest) -> dict:
    """GPUs in use and queue per team over the range the query asks for, in the viewer's
    scope; ``InvalidInput`` naming the field when the range is malformed."""
    chosen = ranges.parse_range(request.GET, now=timezone.now())
    return level_series(chosen, team_slugs(request.user))


@login_required
def usage(request: HttpRequest) -> HttpResponse:
    form = RangeForm(request.GET or None)
    try:
        series = scoped_levels(request)
    except InvalidInput as exc:
        form.is_valid()
        add_to_form(form, exc)
        return render(request, "reports/usage.html", {"form": form}, status=400)
    context = {
        "form": form,
        "series": series,
        "charts": [
            {"id": f"{level}-data", "spec": charts.level_lines(series, level)}
            for level in charts.LEVEL_TITLES
        ],
    }
    return render(request, "reports/usage.html", context)
