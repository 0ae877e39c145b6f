"""Idle notebooks are warned, then culled, from DCGM data in a real Prometheus."""

from datetime import timedelta

import pytest

from apps.jobs.choices import NotebookState
from apps.jobs.models import Notebook
from apps.jobs.services import NotebookRequest, Principal, cull_idle_notebooks, request_notebook
from core import prometheus
from testkit.notebooks import IMAGE

pytestmark = pytest.mark.django_db


@pytest.fixture
def at_end(prometheus, settings):
    settings.PROMETHEUS_URL = prometheus.url
    return prometheus.end_time


def running_notebook(user, pod_prefix: str, ready_at) -> Notebook:
    spec = NotebookRequest(image=IMAGE, flavor="h100")
    notebook = request_notebook(user, spec, actor=Principal(user), now=ready_at).record
    Notebook.objects.filter(pk=notebook.pk).update(
        name=pod_prefix, state=NotebookState.READY, ready_at=ready_at
    )
    return Notebook.objects.get(pk=notebook.pk)


def test_it_reads_the_peak_utilisation_per_notebook_pod(at_end):
    peaks = prometheus.peak_gpu_utilization(60, at=at_end)
    assert peaks == {("team-vision", "nb-idle-0"): 1.0, ("team-vision", "nb-busy-0"): 55.0}


def test_an_idle_notebook_is_warned_then_culled_with_the_reason(at_end, scientist, lead, pool):
    idle = running_notebook(scientist, "nb-idle", at_end - timedelta(hours=2))
    busy = running_notebook(lead, "nb-busy", at_end - timedelta(hours=2))

    first = cull_idle_notebooks(prometheus.peak_gpu_utilization(60, at=at_end), now=at_end)
    assert first == {"warned": 1, "culled": 0, "cleared": 0}
    idle.refresh_from_db()
    assert idle.idle_warned_at == at_end and idle.state == NotebookState.READY

    later = at_end + timedelta(minutes=16)
    second = cull_idle_notebooks(prometheus.peak_gpu_utilization(60, at=later), now=later)
    assert second == {"warned": 0, "culled": 1, "cleared": 0}
    idle.refresh_from_db()
    busy.refresh_from_db()
    assert idle.state == NotebookState.CULLED
    assert idle.state_reason == (
        "idle: GPU utilisation peaked at 1.0% over the last 60 min (threshold 5%)"
    )
    assert busy.state == NotebookState.READY and busy.idle_warned_at is None


def test_a_notebook_younger_than_the_window_is_not_judged(at_end, scientist, pool):
    young = running_notebook(scientist, "nb-idle", at_end - timedelta(minutes=30))
    peaks = prometheus.peak_gpu_utilization(60, at=at_end)
    assert cull_idle_notebooks(peaks, now=at_end)["warned"] == 0
    young.refresh_from_db()
    assert young.idle_warned_at is None


def test_no_reading_is_not_idleness(scientist, pool):
    notebook = running_notebook(scientist, "nb-unmeasured", pool.updated_at - timedelta(hours=3))
    assert cull_idle_notebooks({}, now=pool.updated_at)["warned"] == 0
    notebook.refresh_from_db()
    assert notebook.state == NotebookState.READY


def test_an_unreachable_prometheus_is_a_metrics_error(settings, at_end):
    settings.PROMETHEUS_URL = "http://127.0.0.1:9"
    with pytest.raises(prometheus.MetricsUnavailable):
        prometheus.peak_gpu_utilization(60, at=at_end)
