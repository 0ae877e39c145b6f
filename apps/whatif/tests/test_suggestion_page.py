"""The Suggestions page over stored reports and a real (simulated) cluster: who sees
what, the cluster's dry run hiding what it would refuse, and the what-if button."""

from datetime import timedelta

import pytest
from django.test import Client

from apps.queues.reconcile.run import reconcile
from apps.reports.compute.weeks import previous_weeks, week_bounds, week_of
from apps.reports.models import WeeklyReport, WorkloadRecord
from apps.whatif.models import WhatIfRun
from testkit.factories import make_queue, quota

pytestmark = pytest.mark.django_db
URL = "/whatif/suggestions/"
# A week is 168 h; 16 reserved h100 GPUs are 16 × 168 = 2688 GPU-hours.
RESERVED = 2688.0


def store_two_finished_weeks(teams: dict[str, float]) -> list[str]:
    """Last week and the one before, finished, each team idle ``teams[t]`` of 2688 on h100."""
    from django.utils import timezone

    weeks = previous_weeks(week_of(timezone.now()), 3)[:2]
    for week in weeks:
        WeeklyReport.objects.create(
            week=week,
            data={
                "period": {"covered_hours": 168.0, "week_hours": 168.0, "in_progress": False},
                "cost": {
                    "teams": [
                        {
                            "team": team,
                            "idle_by_flavor": [
                                {
                                    "flavor": "h100",
                                    "reserved_gpu_hours": RESERVED,
                                    "idle_gpu_hours": idle_hours,
                                }  # fmt: skip
                            ],
                        }
                        for team, idle_hours in teams.items()
                    ]
                },
                "fairness": {
                    "queues": [
                        {"queue": t, "team": t, "flavor": "h100", "nominal": 16.0} for t in teams
                    ]
                },
            },
        )
    return weeks


def ran(team: str, gpus: int, week: str, uid: str) -> None:
    """A workload of ``team`` holding ``gpus`` h100 for a day in ``week``."""
    start = week_bounds(week)[0] + timedelta(days=1)
    WorkloadRecord.objects.create(
        uid=uid, namespace=f"team-{team}", name=uid, team_slug=team, gpus=gpus,
        gpus_by_flavor={"h100": gpus}, created_at=start, first_admitted_at=start,
        finished_at=start + timedelta(days=1),
    )  # fmt: skip


@pytest.fixture
def history(cluster, queue, catalog, other_team, lead, other_lead):
    # nlp lends up to 10 of its 16 h100: lowering its nominal to 5 breaks
    # lendingLimit ≤ nominalQuota, which Kueue's webhook refuses.
    make_queue(
        catalog, other_team, cohort="research", quotas=[quota("h100", "16", lending_limit="10")]
    )
    reconcile(trigger="manual")
    # Idle: vision 2000/2688 ≈ 74 %, nlp 2400/2688 ≈ 89 %, both weeks (≥ 50 %).
    weeks = store_two_finished_weeks({"vision": 2000.0, "nlp": 2400.0})
    # Peaks: vision 2 + 1 GPUs at once = 3; nlp 5.
    ran("vision", 2, weeks[0], "v1")
    ran("vision", 1, weeks[0], "v2")
    ran("vision", 2, weeks[1], "v3")
    ran("nlp", 5, weeks[1], "n1")
    return weeks


def page(user) -> tuple[int, str]:
    client = Client()
    client.force_login(user)
    response = client.get(URL)
    return response.status_code, response.content.decode()


def test_a_scientist_may_not_see_suggestions(history, scientist):
    assert page(scientist)[0] == 403


def test_a_lead_sees_their_teams_suggestion_with_its_evidence(history, lead):
    status, html = page(lead)
    assert status == 200
    assert "Lower vision on h100: 16 → 3 GPUs" in html
    assert "2000.0" in html and "74 %" in html  # 2000 / 2688 = 74.4 %
    assert "nlp" not in html


def test_a_suggestion_the_cluster_refuses_is_not_offered(history, other_lead, admin):
    status, html = page(other_lead)
    assert status == 200
    assert "Lower nlp" not in html and "No suggestions" in html
    _, admin_html = page(admin)
    assert "Lower vision on h100: 16 → 3 GPUs" in admin_html
    assert "Lower nlp" not in admin_html
    assert "Refused by the cluster" in admin_html
    assert "must be less than or equal to the nominalQuota" in admin_html


def test_the_whatif_button_replays_the_draft_over_those_weeks(history, lead, eager_celery):
    client = Client()
    client.force_login(lead)
    response = client.post(URL + "whatif/", {"queue": "vision", "flavor": "h100"})
    run = WhatIfRun.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/whatif/{run.pk}/"
    [h100] = [q for q in run.draft["vision"]["quotas"] if q["flavor"] == "h100"]
    assert h100["nominal"] == "3"
    # The window reaches back to the older week's Monday.
    assert run.window_start <= week_bounds(history[0])[0]
    # The page now links the suggestion to that what-if.
    assert f'href="/whatif/{run.pk}/"' in page(lead)[1]
    refused = client.post(URL + "whatif/", {"queue": "nlp", "flavor": "h100"})
    assert refused.status_code == 302 and WhatIfRun.objects.count() == 1


def test_the_weekly_report_links_leads_to_the_suggestions(settings, queue, lead, scientist):
    from django.urls import reverse

    from apps.reports import services as report_services
    from testkit import promdata

    settings.PROMETHEUS_URL = settings.OPENCOST_URL = ""
    report_services.build_weekly_report(promdata.WEEK)
    for user, linked in ((lead, True), (scientist, False)):
        client = Client()
        client.force_login(user)
        response = client.get(reverse("reports:week", args=[promdata.WEEK]))
        assert response.status_code == 200
        assert (f'href="{URL}"' in response.content.decode()) is linked
