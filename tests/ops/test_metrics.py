"""/metrics: Prometheus text format, token-protected, with every metric the
dashboard and alerts use, HTTP timing by view name, queue sync states from the
database at scrape time, Celery task failures and reconcile runs."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from celery import shared_task
from prometheus_client.parser import text_string_to_metric_families

from apps.queues.reconcile.run import reconcile
from core.observability import collectors
from core.observability.collectors import register_gauge
from testkit.factories import make_queue, make_team, quota
from testkit.sim_cluster import SimCluster

ROOT = Path(__file__).resolve().parents[2]
# Registered by other apps through collectors.register_gauge (see portal/observability).
EXTERNAL = {"qm_history_recorder_lag_seconds"}


def scrape(client, **headers) -> dict[str, list]:
    response = client.get("/metrics", **headers)
    assert response.status_code == 200, response.content[:300]
    assert response["Content-Type"].startswith("text/plain")
    families = text_string_to_metric_families(response.content.decode())
    return {family.name: family.samples for family in families}


def sample(samples: list, suffix: str = "", **labels) -> float:
    values = [
        s.value for s in samples if s.name.endswith(suffix) and labels.items() <= s.labels.items()
    ]
    return sum(values)


@pytest.fixture
def cluster(tmp_path, settings):
    # A bare API server: the simulated Kueue's status writes would change the
    # ClusterQueue's resourceVersion under the reconciler's conditional patch (a 409
    # that the next run repairs), and this test counts one run's drift repairs.
    sim = SimCluster(tmp_path, controller=False).start()
    settings.KUBECONFIG, settings.QM_CLUSTER_SYNC = str(sim.kubeconfig), True
    settings.KUEUE_API_VERSION = "v1beta2"
    yield sim
    sim.stop()


@pytest.mark.django_db
def test_http_requests_are_timed_by_view_name_and_status(client):
    client.get("/healthz")
    client.get("/no-such-page/")
    metrics = scrape(client)["qm_http_request_duration_seconds"]
    assert sample(metrics, "_count", view="healthz", status="200") >= 1
    assert sample(metrics, "_count", view="<unresolved>", status="404") >= 1
    assert not any("no-such-page" in str(s.labels) for s in metrics)


@pytest.mark.django_db
def test_queue_sync_states_are_read_from_the_database_at_scrape_time(client, queue, settings):
    settings.QM_CLUSTER_SYNC = True
    states = scrape(client)["qm_queue_sync_state"]
    assert {s.labels["state"] for s in states} == {"in_sync", "pending", "drift_repaired", "error"}
    assert sample(states, state="pending") == 1 and sample(states, state="in_sync") == 0


@pytest.mark.django_db
def test_a_failing_scrape_time_gauge_is_skipped_not_fatal(client):
    register_gauge("qm_test_broken", "always fails", lambda: 1 / 0)
    register_gauge("qm_test_answer", "always 42", lambda: 42)
    try:
        metrics = scrape(client)
    finally:
        collectors._GAUGES.pop("qm_test_broken")
        collectors._GAUGES.pop("qm_test_answer")
    assert "qm_test_broken" not in metrics and sample(metrics["qm_test_answer"]) == 42


@pytest.mark.django_db
def test_the_token_protects_metrics(client, settings):
    settings.METRICS_TOKEN = "s3cret-token"
    assert client.get("/metrics").status_code == 401
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 401
    assert scrape(client, HTTP_AUTHORIZATION="Bearer s3cret-token")


@shared_task(soft_time_limit=5)
def _always_fails_task() -> None:
    raise RuntimeError("boom")


@pytest.mark.django_db
def test_celery_task_failures_are_counted(client):
    name = _always_fails_task.name
    before = sample(scrape(client).get("qm_celery_task_failures", []), "_total", task=name)
    _always_fails_task.apply()
    after = sample(scrape(client)["qm_celery_task_failures"], "_total", task=name)
    assert after == before + 1


@pytest.mark.django_db
def test_reconcile_runs_drift_and_kube_calls_are_measured(client, cluster, catalog):
    make_queue(catalog, make_team(catalog, "vision"), quotas=[quota("h100", "16")])
    reconcile(trigger="manual")
    cluster.patch("ClusterQueue", "vision", {"spec": {"fairSharing": {"weight": "7"}}})
    reconcile(trigger="manual")
    metrics = scrape(client)
    assert sample(metrics["qm_reconcile_duration_seconds"], "_count", trigger="manual") >= 2
    assert sample(metrics["qm_drift_repairs"], "_total", kind="ClusterQueue") >= 1
    assert (
        sample(metrics["qm_kube_requests"], "_total", resource="clusterqueues", verb="patch") >= 1
    )
    assert sample(metrics["qm_reconcile_last_run"], field="failed") == 0


@pytest.mark.django_db
def test_every_metric_on_the_dashboard_and_in_the_alerts_exists(client):
    import core.observability.metrics as definitions

    used = set(
        re.findall(r"\bqm_[a-z_]+", (ROOT / "deploy/grafana/quartermaster.json").read_text())
    )
    used |= set(re.findall(r"\bqm_[a-z_]+", (ROOT / "deploy/prometheus/alerts.yml").read_text()))
    defined = {m._name for m in vars(definitions).values() if hasattr(m, "_name")}
    defined |= set(scrape(client)) | set(collectors._GAUGES) | EXTERNAL
    suffixes = ("_bucket", "_count", "_sum", "_total")
    base = {
        next((n[: -len(s)] for s in suffixes if n.endswith(s) and n[: -len(s)] in defined), n)
        for n in used
    }
    assert base <= defined, base - defined


def test_the_dashboard_is_valid_grafana_json():
    dashboard = json.loads((ROOT / "deploy/grafana/quartermaster.json").read_text())
    assert dashboard["uid"] == "quartermaster" and dashboard["panels"]
    assert all(panel["targets"] for panel in dashboard["panels"])
