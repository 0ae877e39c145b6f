"""DCGM usage, OpenCost prices and Kueue's histogram from a real, backfilled Prometheus."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from apps.reports import services
from apps.reports.compute.stats import PERCENTILES, kueue_estimate
from apps.reports.models import WeeklyReport, WorkloadUsage
from core import prometheus
from testkit import history, promdata

START, END = promdata.RUN_START, promdata.RUN_END


@pytest.fixture
def week_history(team, other_team, queue, other_queue):
    history.record(
        history.life("train-a", "team-vision", created=START - 600, admitted=START, ended=END, gpus=2),
        history.life("train-b", "team-nlp", created=START - 60, admitted=START, ended=END,
                     flavor="a100", queue="nlp"),
        history.life("nb-mig", "team-vision", created=START - 60, admitted=START, ended=END,
                     flavor="a100", resource="nvidia.com/mig-1g.10gb", owner_kind="StatefulSet"),
    )  # fmt: skip


@pytest.fixture
def on_prometheus(settings, prometheus_url):
    settings.PROMETHEUS_URL = prometheus_url
    settings.OPENCOST_URL = ""
    settings.QM_PROMETHEUS_STEP_SECONDS = 300
    return prometheus_url


def week_quantiles() -> dict[str, dict[str, float]]:
    """Kueue's histogram quantiles per ClusterQueue over the whole of ``promdata.WEEK``."""
    start = datetime.fromtimestamp(promdata.MONDAY, tz=UTC)
    return prometheus.kueue_wait_quantiles(start, start + timedelta(days=7, seconds=-1))


def usage(uid: str) -> WorkloadUsage:
    return WorkloadUsage.objects.get(workload__uid=uid, week=promdata.WEEK)


def test_it_attributes_dcgm_series_to_workloads_with_either_label_spelling(
    week_history, on_prometheus
):
    services.build_weekly_report(promdata.WEEK)
    assert usage("uid-train-a").gpu_util == pytest.approx(0.6)  # namespace/pod + Hostname
    assert usage("uid-train-b").gpu_util == pytest.approx(0.2)  # exported_* + hostname
    assert usage("uid-train-a").memory_used_mib == pytest.approx(4000)
    # 600 W for two hours: 1.2 kWh (24 five-minute steps).
    assert usage("uid-train-a").energy_kwh == pytest.approx(1.2)
    assert usage("uid-train-b").energy_kwh == pytest.approx(0.4)


def test_jobs_whose_names_share_a_prefix_get_their_own_pods_by_ownership(
    week_history, on_prometheus
):
    history.record(
        history.life("train", "team-vision", created=START - 60, admitted=START, ended=END),
        history.life("train-2", "team-vision", created=START - 60, admitted=START, ended=END),
    )
    services.build_weekly_report(promdata.WEEK)
    # Pod train-2-k8f3q fits both names; kube_pod_owner says it is the Job train's.
    assert usage("uid-train").gpu_util == pytest.approx(0.3)
    assert usage("uid-train-2").gpu_util == pytest.approx(0.9)
    assert usage("uid-train-a").gpu_util == pytest.approx(0.6)  # untouched by either


def test_it_reads_mig_utilisation_from_the_engine_activity(week_history, on_prometheus):
    services.build_weekly_report(promdata.WEEK)
    assert usage("uid-nb-mig").gpu_util == pytest.approx(0.3)
    assert usage("uid-nb-mig").power_watts is None


def test_it_prices_flavors_from_opencost_series_and_marks_what_is_missing(
    week_history, on_prometheus
):
    data = services.build_weekly_report(promdata.WEEK).data
    prices = {p["flavor"]: (p["usd_per_gpu_hour"], p["source"]) for p in data["cost"]["prices"]}
    assert prices["h100"] == (pytest.approx(4.0), "opencost")
    vision = next(c for c in data["cost"]["teams"] if c["team"] == "vision")
    assert vision["gpu_cost"] == pytest.approx(2 * 2 * 4.0 + 1 * 2 * 2.0)
    # OPENCOST_URL unset: non-GPU cost; no kube_node_status_allocatable: fragmentation.
    assert {g["panel"] for g in data["gaps"]} == {"cost", "fragmentation"}


def test_prometheus_agrees_with_our_kueue_histogram_emulation(on_prometheus):
    answers = week_quantiles()
    for q in PERCENTILES:
        key = f"p{round(q * 100)}"
        assert answers["vision"][key] == pytest.approx(kueue_estimate(promdata.WAITS, q), rel=1e-6)


def test_prometheus_down_marks_the_gap_and_still_builds(week_history, settings):
    settings.PROMETHEUS_URL = "http://127.0.0.1:9"  # discard port: nothing listens
    settings.OPENCOST_URL = ""
    report = services.build_weekly_report(promdata.WEEK)
    panels = {g["panel"]: g["reason"] for g in report.data["gaps"]}
    assert "unreachable" in panels["utilisation"]
    assert "waits" in panels and "cost" in panels
    assert WeeklyReport.objects.get(week=promdata.WEEK).totals["gpu_hours"] == pytest.approx(8.0)


def test_prometheus_percentiles_count_the_sample_that_creates_a_series(on_prometheus):
    # nlp's bucket series appear on Wednesday already counting waits 3, 3, 3; a wait of
    # 30 s follows. Four observations: le=5 holds 3 of them, le=40 the fourth.
    nlp = week_quantiles()["nlp"]
    # p50: rank 0.5 × 4 = 2 falls in (2.5, 5] holding 3 → 2.5 + 2.5 × 2/3.
    assert nlp["p50"] == pytest.approx(2.5 + 2.5 * 2 / 3)
    # p90: rank 3.6 falls in (20, 40] holding 1 after 3 → 20 + 20 × 0.6.
    assert nlp["p90"] == pytest.approx(20 + 20 * 0.6)
    assert nlp["p99"] == pytest.approx(20 + 20 * 0.96)


def test_prometheus_percentiles_survive_a_kueue_restart(on_prometheus):
    # restarted: waits 3, 3 before Kueue restarts (counters reset to 0), 30 after.
    restarted = week_quantiles()["restarted"]
    # Three observations: p50 rank 1.5 in (2.5, 5] holding 2 → 2.5 + 2.5 × 1.5/2.
    assert restarted["p50"] == pytest.approx(2.5 + 2.5 * 1.5 / 2)
    # p90: rank 2.7 in (20, 40] holding 1 after 2 → 20 + 20 × 0.7.
    assert restarted["p90"] == pytest.approx(20 + 20 * 0.7)
