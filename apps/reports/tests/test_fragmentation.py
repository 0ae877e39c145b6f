"""Fragmentation from kube-state-metrics in a real Prometheus: whole GPUs and MIG
slices on separate flavors, answers worked out by hand.

Monday 10:00–12:00 of 2026-W46, one sample a minute:
* flavor ``frag-h100``: nodes n1, n2 with 8 GPUs each; pods hold 6 on n1 and 5 on n2,
  so 5 GPUs are free in aggregate but at most 3 on one node. Pod ``wide`` (4 GPUs) is
  unschedulable 10:30–11:30, pod ``huge`` (8 GPUs) 11:30–12:00.
* flavor ``frag-mig``: nodes m1, m2 with 7 ``1g.10gb`` slices each; pods hold 6 on
  each, 2 free; pod ``pair`` (2 slices) is unschedulable 10:00–10:30.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from apps.reports import services
from testkit import history
from testkit.factories import make_flavor
from testkit.prometheus_backfill import backfilled_prometheus

WEEK = "2026-W46"
MONDAY = datetime(2026, 11, 9, tzinfo=UTC).timestamp()
H = 3600
T10 = MONDAY + 10 * H
NS, GPU, MIG = "team-vision", "nvidia_com_gpu", "nvidia_com_mig_1g_10gb"
CLASS = "label_gpu_nvidia_com_class"
NODES = {
    "n1": ("h100", GPU, 8),
    "n2": ("h100", GPU, 8),
    "m1": ("mig", MIG, 7),
    "m2": ("mig", MIG, 7),
}
BOUND = [("hold-a", "n1", GPU, 6), ("hold-b", "n2", GPU, 5),
         ("slices-a", "m1", MIG, 6), ("slices-b", "m2", MIG, 6)]  # fmt: skip
# (pod, resource, units, unschedulable from, until) — admitted by Kueue at "from".
STUCK = [("wide", GPU, 4, T10 + 0.5 * H, T10 + 1.5 * H), ("huge", GPU, 8, T10 + 1.5 * H, T10 + 2 * H),
         ("pair", MIG, 2, T10, T10 + 0.5 * H)]  # fmt: skip


def _minutes(start: float, end: float):
    return range(int(start), int(end), 60)


def _lines(name: str, labels: dict, value: float, start: float, end: float) -> str:
    """Each series twice: kube-state-metrics and OpenCost (EMIT_KSM_V1_METRICS) both emit it."""
    out = []
    for job in ("kube-state-metrics", "opencost"):
        text = ",".join(f'{k}="{v}"' for k, v in {**labels, "job": job}.items())
        out += [f"{name}{{{text}}} {value} {t}\n" for t in _minutes(start, end)]
    return "".join(out)


def write_history(path) -> None:
    end = T10 + 2 * H
    out = ["# TYPE kube_node_status_allocatable gauge\n"]
    out += [_lines("kube_node_status_allocatable", {"node": n, "resource": r, "unit": "integer"}, c, T10, end)
            for n, (_, r, c) in NODES.items()]  # fmt: skip
    out.append("# TYPE kube_node_labels gauge\n")
    out += [
        _lines("kube_node_labels", {"node": n, CLASS: cls}, 1, T10, end)
        for n, (cls, _, _) in NODES.items()
    ]
    out.append("# TYPE kube_pod_container_resource_requests gauge\n")
    req = "kube_pod_container_resource_requests"
    out += [_lines(req, {"namespace": NS, "pod": p, "container": "main", "node": n, "resource": r,
                         "unit": "integer"}, u, T10, end) for p, n, r, u in BOUND]  # fmt: skip
    out += [_lines(req, {"namespace": NS, "pod": p, "container": "main", "resource": r, "unit": "integer"},
                   u, a, b) for p, r, u, a, b in STUCK]  # fmt: skip
    out.append("# TYPE kube_pod_status_phase gauge\n")
    for pod, *_ in BOUND:
        for phase, value in (("Pending", 0), ("Running", 1)):
            out.append(
                _lines(
                    "kube_pod_status_phase",
                    {"namespace": NS, "pod": pod, "phase": phase},
                    value,
                    T10,
                    end,
                )
            )
    for pod, _, _, a, b in STUCK:
        for phase, value in (("Pending", 1), ("Running", 0)):
            out.append(
                _lines(
                    "kube_pod_status_phase",
                    {"namespace": NS, "pod": pod, "phase": phase},
                    value,
                    a,
                    b,
                )
            )
    out.append("# TYPE kube_pod_status_unschedulable gauge\n")
    out += [
        _lines("kube_pod_status_unschedulable", {"namespace": NS, "pod": p}, 1, a, b)
        for p, _, _, a, b in STUCK
    ]
    out.append("# EOF\n")
    path.write_text("".join(out))


@pytest.fixture
def fragmented_week(tmp_path, settings, admin):
    make_flavor(
        admin, "frag-h100", {"nvidia.com/gpu": "16"}, node_labels={"gpu.nvidia.com/class": "h100"}
    )
    make_flavor(
        admin,
        "frag-mig",
        {"nvidia.com/mig-1g.10gb": "14"},
        node_labels={"gpu.nvidia.com/class": "mig"},
    )
    history.record(
        history.life("wide", NS, created=T10, admitted=T10 + 0.5 * H, ended=T10 + 2 * H, gpus=4, flavor="frag-h100"),
        history.life("huge", NS, created=T10, admitted=T10 + 1.5 * H, ended=T10 + 2 * H, gpus=8, flavor="frag-h100"),
        history.life("pair", NS, created=T10, admitted=T10, ended=T10 + 2 * H, gpus=2, flavor="frag-mig",
                     resource="nvidia.com/mig-1g.10gb"),
    )  # fmt: skip
    write_history(tmp_path / "h.om")
    # Backfilled series have no staleness markers: a 30 s lookback ends each one at its
    # last sample, as a scraped series that disappears would end.
    with backfilled_prometheus(tmp_path / "h.om", tmp_path, "--query.lookback-delta=30s") as url:
        settings.PROMETHEUS_URL = url
        settings.OPENCOST_URL = ""
        settings.QM_PROMETHEUS_STEP_SECONDS = 60
        yield


def test_fragmentation_per_flavor_never_adds_mig_slices_to_gpus(fragmented_week):
    data = services.build_weekly_report(WEEK).data["fragmentation"]
    rows = {(r["flavor"], r["unit"]): r for r in data["flavors"]}
    h100, mig = rows[("frag-h100", "GPU")], rows[("frag-mig", "MIG mig_1g_10gb")]
    # h100: free (8 − 6) + (8 − 5) = 5 ≥ wide's 4 for 1 h → 5 GPU-h; huge's 8 > 5 never fits.
    assert h100["fragmented_hours"] == pytest.approx(5 * 1.0)
    assert h100["blocked_demand_hours"] == pytest.approx(4 * 1.0 + 8 * 0.5)
    assert h100["capacity"] == 16
    # mig: free (7 − 6) + (7 − 6) = 2 slices ≥ pair's 2 for 0.5 h → 1 slice-hour.
    assert mig["fragmented_hours"] == pytest.approx(2 * 0.5)
    assert mig["blocked_demand_hours"] == pytest.approx(2 * 0.5)
    # The headline counts whole GPUs only.
    assert data["fragmented_gpu_hours"] == pytest.approx(5.0)
    assert data["blocked_demand_gpu_hours"] == pytest.approx(8.0)
    assert data["capacity_gpus"] == 16


def test_when_no_node_carries_a_flavors_labels_fragmentation_is_a_gap(fragmented_week, admin):
    for name in ("frag-h100", "frag-mig"):  # relabelled: no node in kube_node_labels has "b200"
        make_flavor(admin, name, {}, node_labels={"gpu.nvidia.com/class": "b200"})
    report = services.build_weekly_report(WEEK)
    assert report.data["fragmentation"]["fragmented_gpu_hours"] is None
    assert [g["kind"] for g in report.data["gaps"] if g["panel"] == "fragmentation"] == [
        "placement"
    ]


def test_without_placement_metrics_fragmentation_is_a_gap_not_zero(settings, db):
    settings.PROMETHEUS_URL = "http://127.0.0.1:9"  # nothing listens
    report = services.build_weekly_report(WEEK)
    assert report.data["fragmentation"]["fragmented_gpu_hours"] is None
    assert "fragmentation" in {g["panel"] for g in report.data["gaps"]}


def test_the_week_page_lists_fragmentation_per_flavor_and_unit(fragmented_week, client, admin):
    services.build_weekly_report(WEEK)
    client.force_login(admin)
    page = client.get(f"/reports/{WEEK}/").content.decode()
    assert "5.0 GPU-hours free on a flavor" in page
    assert "<td>frag-mig</td><td>MIG mig_1g_10gb</td>" in page
