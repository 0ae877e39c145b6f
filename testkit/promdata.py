"""The OpenMetrics history the real-Prometheus tests backfill: week 2026-W47.

* ``train-a`` (team-vision): 2 GPUs at 40 % and 80 %, 300 W each, 10:00–12:00 Monday,
  labels ``namespace``/``pod`` and ``Hostname`` (dcgm-exporter ≤ 4.5).
* ``train-b`` (team-nlp): 1 GPU at 20 %, 200 W, same hours, scraped without
  honorLabels: ``exported_namespace``/``exported_pod`` and lower-case ``hostname``.
* ``nb-mig`` (team-vision, a StatefulSet): one MIG slice, GR_ENGINE_ACTIVE 0.3, no DEV util.
* ``train`` and ``train-2`` (team-vision, Jobs whose names share a prefix), same hours:
  pod ``train-2-k8f3q`` (index 2 of the indexed Job ``train``) at 30 %, pod
  ``train-2-z9x4m`` (of ``train-2``) at 90 %; only kube-state-metrics' ``kube_pod_owner``
  tells which pod is whose.
* OpenCost: h100 node $4/GPU-h, a100 node $2/GPU-h; container_gpu_allocation per pod;
  two l40s nodes nothing runs on (``L40S_NODES``); node labels on ``kube_node_labels``.
* Kueue: ``kueue_admission_wait_time_seconds`` buckets for queue ``vision`` from ``WAITS``,
  and for ``nlp`` a series created mid-week (see ``_histogram``).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from apps.reports.compute.stats import KUEUE_WAIT_BUCKETS, bucket_counts

WEEK = "2026-W47"
MONDAY = datetime(2026, 11, 16, tzinfo=UTC).timestamp()
RUN_START = MONDAY + 10 * 3600
RUN_END = MONDAY + 12 * 3600
WAITS = [3, 7, 7, 30, 45, 90, 300, 700, 1500, 4000, 20000, 60000]
NLP_FIRST = [3, 3, 3]  # counted by the sample that creates the nlp series
NLP_LATER = [30]
RESTART_BEFORE, RESTART_AFTER = [3, 3], [30]
NLP_BORN = MONDAY + 2 * 86400 + 2 * 3600
NLP_LATER_AT = MONDAY + 2 * 86400 + 12 * 3600


def _minutes(start: float, end: float, step: float = 60.0):
    t = start
    while t < end:
        yield t
        t += step


def _labels(values: dict[str, str]) -> str:
    return ",".join(f'{k}="{v}"' for k, v in values.items())


def dcgm_series() -> dict[str, list[tuple[dict, float]]]:
    a = {
        "Hostname": "gpu-node-01",
        "namespace": "team-vision",
        "pod": "train-a-x7k2p",
        "container": "main",
    }
    b = {
        "hostname": "gpu-node-02",
        "namespace": "gpu-operator",
        "pod": "dcgm-exporter-q2",
        "exported_namespace": "team-nlp",
        "exported_pod": "train-b-9fz3c",
        "exported_container": "main",
    }
    mig = {
        "Hostname": "gpu-node-02",
        "namespace": "team-vision",
        "pod": "nb-mig-0",
        "GPU_I_PROFILE": "1g.10gb",
        "GPU_I_ID": "3",
    }
    idle = {"Hostname": "gpu-node-01"}  # a GPU no pod holds: never attributed
    indexed = {"Hostname": "gpu-node-03", "namespace": "team-vision", "pod": PREFIX_PODS[0][0]}
    other = {"Hostname": "gpu-node-03", "namespace": "team-vision", "pod": PREFIX_PODS[1][0]}
    return {
        "DCGM_FI_DEV_GPU_UTIL": [({**a, "gpu": "0"}, 40), ({**a, "gpu": "1"}, 80),
                                 ({**b, "gpu": "0"}, 20), ({**idle, "gpu": "7"}, 0),
                                 ({**indexed, "gpu": "0"}, 30), ({**other, "gpu": "1"}, 90)],
        "DCGM_FI_PROF_GR_ENGINE_ACTIVE": [({**mig, "gpu": "1"}, 0.3)],
        "DCGM_FI_DEV_POWER_USAGE": [({**a, "gpu": "0"}, 300), ({**a, "gpu": "1"}, 300),
                                    ({**b, "gpu": "0"}, 200)],
        "DCGM_FI_DEV_FB_USED": [({**a, "gpu": "0"}, 1000), ({**a, "gpu": "1"}, 3000)],
    }  # fmt: skip


PREFIX_PODS = (("train-2-k8f3q", "train"), ("train-2-z9x4m", "train-2"))  # (pod, its Job)


def owner_series() -> dict[str, list[tuple[dict, float]]]:
    """kube-state-metrics' pod → owner series, for the two prefix-sharing Jobs' pods."""
    return {
        "kube_pod_owner": [
            ({"namespace": "team-vision", "pod": pod, "owner_kind": "Job", "owner_name": job,
              "owner_is_controller": "true"}, 1)
            for pod, job in PREFIX_PODS
        ]
    }  # fmt: skip


L40S_NODES = (("gpu-node-04", 1.5, 4), ("gpu-node-05", 2.0, 8))  # (node, $/GPU-h, GPUs)


def cost_series() -> dict[str, list[tuple[dict, float]]]:
    return {
        "node_gpu_hourly_cost": [({"node": "gpu-node-01", "instance": "gpu-node-01"}, 4.0),
                                 ({"node": "gpu-node-02", "instance": "gpu-node-02"}, 2.0),
                                 *(({"node": n, "instance": n}, price) for n, price, _ in L40S_NODES)],
        "node_gpu_count": [({"node": n, "instance": n}, gpus) for n, _, gpus in L40S_NODES],
        "kube_node_labels": [
            ({"node": "gpu-node-01", "label_gpu_nvidia_com_class": "h100"}, 1),
            ({"node": "gpu-node-04", "service": "kube-state-metrics"}, 1),  # KSM: nothing allow-listed
            ({"node": "gpu-node-02", "label_gpu_nvidia_com_class": "a100"}, 1),
            *(({"node": node, "label_gpu_nvidia_com_class": "l40s"}, 1) for node, _, _ in L40S_NODES),
        ],
        "container_gpu_allocation": [
            ({"namespace": "team-vision", "pod": "train-a-x7k2p", "node": "gpu-node-01"}, 2),
            ({"namespace": "team-nlp", "pod": "train-b-9fz3c", "node": "gpu-node-02"}, 1),
        ],
    }  # fmt: skip


def _gauges(out, families) -> None:
    for name, series in families.items():
        out.write(f"# TYPE {name} gauge\n")
        for labels, value in series:
            for t in _minutes(RUN_START, RUN_END):
                out.write(f"{name}{{{_labels(labels)}}} {value} {t:.0f}\n")


def _histogram(out) -> None:
    """Queue ``vision``: series from Monday 01:00 at 0, ``WAITS`` observed by 03:00.
    Queue ``nlp``: series born on Wednesday 02:00 with ``NLP_FIRST`` already counted
    (Kueue creates them at the first admission), ``NLP_LATER`` added at 12:00."""
    name = "kueue_admission_wait_time_seconds"
    out.write(f"# TYPE {name} histogram\n")
    bounds = [*(f"{b:g}" for b in KUEUE_WAIT_BUCKETS), "+Inf"]
    times = list(_minutes(MONDAY + 3600, MONDAY + 7 * 86400 - 3600, 3600))
    counts = bucket_counts(WAITS)
    for le, count in zip(bounds, counts, strict=True):
        labels = _labels({"cluster_queue": "vision", "priority_class": "p2", "le": le})
        for k, t in enumerate(times):
            out.write(f"{name}_bucket{{{labels}}} {0 if k < 2 else count} {t:.0f}\n")
    _restarted(out, name, bounds, times)
    first, both = bucket_counts(NLP_FIRST), bucket_counts(NLP_FIRST + NLP_LATER)
    for le, early, late in zip(bounds, first, both, strict=True):
        labels = _labels({"cluster_queue": "nlp", "priority_class": "p2", "le": le})
        for t in _minutes(NLP_BORN, MONDAY + 7 * 86400 - 3600, 3600):
            out.write(f"{name}_bucket{{{labels}}} {early if t < NLP_LATER_AT else late} {t:.0f}\n")


def _restarted(out, name: str, bounds: list[str], times: list[float]) -> None:
    """Queue ``restarted``: 0 from Monday 01:00, ``RESTART_BEFORE`` observed by 03:00; Kueue
    restarts on Wednesday (counters back to 0), then ``RESTART_AFTER`` is observed."""
    before, after = bucket_counts(RESTART_BEFORE), bucket_counts(RESTART_AFTER)
    for le, early, late in zip(bounds, before, after, strict=True):
        labels = _labels({"cluster_queue": "restarted", "priority_class": "p2", "le": le})
        for k, t in enumerate(times):
            value = 0 if k < 2 else early if t < NLP_BORN else 0 if t < NLP_LATER_AT else late
            out.write(f"{name}_bucket{{{labels}}} {value} {t:.0f}\n")


def write(path: Path) -> None:
    with path.open("w") as out:
        _gauges(out, dcgm_series())
        _gauges(out, cost_series())
        _gauges(out, owner_series())
        _histogram(out)
        out.write("# EOF\n")
