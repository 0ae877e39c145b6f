"""The Workload and pod accessors, on dicts shaped as the API server serves them."""

from datetime import UTC, datetime

import pytest

from informer import objects as o
from kueuemodel import QuantityError

PREEMPTED = "Preempted to accommodate a workload (UID: big-1, JobUID: j-9) due to prioritization"


def workload(**status) -> dict:
    return {
        "metadata": {
            "name": "job-train-a1b2c",
            "namespace": "team-vision",
            "uid": "w-1",
            "labels": {"kueue.x-k8s.io/queue-name": "from-label"},
            "ownerReferences": [
                {"kind": "Pod", "name": "helper", "controller": False},
                {"kind": "Job", "name": "train", "controller": True},
            ],
        },
        "spec": {
            "queueName": "vision",
            "priority": 100,
            "priorityClassRef": {"name": "high"},
            "podSets": [
                {
                    "name": "main",
                    "count": 2,
                    "template": {
                        "spec": {
                            "containers": [
                                {"resources": {"requests": {"nvidia.com/gpu": "4", "cpu": "8"}}},
                                {"resources": {"limits": {"nvidia.com/mig-1g.10gb": "1"}}},
                            ]
                        }
                    },
                }
            ],
        },
        "status": status,
    }


def cond(kind: str, state: str = "True", at: str = "2026-11-16T08:00:00Z", **extra) -> dict:
    return {"type": kind, "status": state, "lastTransitionTime": at, **extra}


def test_it_finds_conditions_and_reads_their_state():
    obj = workload(conditions=[cond("QuotaReserved"), cond("Admitted", "False")])
    assert o.condition(obj, "QuotaReserved")["status"] == "True"
    assert o.condition(obj, "Finished") is None and o.condition(None, "Finished") is None
    assert o.is_reserved(obj) and not o.is_admitted(obj) and not o.is_finished(obj)
    assert o.transition_time(o.condition(obj, "QuotaReserved")) == datetime(
        2026, 11, 16, 8, tzinfo=UTC
    )


def test_it_says_evicted_and_preempted_and_names_the_preemptor():
    obj = workload(conditions=[cond("Evicted"), cond("Preempted", message=PREEMPTED)])
    assert o.is_evicted(obj) and o.is_preempted(obj)
    assert o.preemptor_uids(obj) == {"big-1"}
    assert o.preemptor_uid("evicted by an admin (UID: x)") == ""
    assert o.preemptor_uids(workload()) == set()


def test_it_reads_queue_priority_and_the_controlling_owner():
    obj = workload()
    assert o.queue_name(obj) == "vision" and o.cluster_queue(obj) == ""
    assert o.priority(obj) == 100 and o.priority_class(obj) == "high"
    assert o.owner(obj) == ("Job", "train")
    assert o.owner_key(obj) == ("team-vision", "Job", "train")
    assert o.key(obj) == "team-vision/job-train-a1b2c"


def test_without_owner_references_the_owner_comes_from_kueues_annotations():
    obj = {
        "metadata": {
            "namespace": "ns",
            "labels": {"kueue.x-k8s.io/queue-name": "lq"},
            "annotations": {
                "kueue.x-k8s.io/job-owner-name": "nb",
                "kueue.x-k8s.io/job-owner-gvk": "apps/v1, Kind=StatefulSet",
            },
        }
    }
    assert o.owner_key(obj) == ("ns", "StatefulSet", "nb")
    assert o.queue_name(obj) == "lq" and o.priority(obj) == 0


def test_it_counts_gpus_per_kind_and_pods():
    obj = workload()
    # 2 pods × 4 full GPUs (requests); 2 pods × 1 MIG slice (limits when no requests).
    assert o.gpus(obj) == {"nvidia.com/gpu": 8, "nvidia.com/mig-1g.10gb": 2}
    assert o.pod_count(obj) == 2


def test_gpu_counts_are_parsed_as_quantities_and_a_bad_one_is_refused_not_rounded():
    obj = workload()
    containers = obj["spec"]["podSets"][0]["template"]["spec"]["containers"]
    containers[0]["resources"]["requests"]["nvidia.com/gpu"] = "4000m"  # 4, written in milli
    assert o.gpus(obj)["nvidia.com/gpu"] == 8
    for bad in ("1500m", "1.5", "four"):
        containers[0]["resources"]["requests"]["nvidia.com/gpu"] = bad
        with pytest.raises(QuantityError, match="nvidia.com/gpu"):
            o.gpus(obj)
    usage = {"name": "main", "flavors": {"nvidia.com/gpu": "a100"}, "resourceUsage": {}}
    usage["resourceUsage"]["nvidia.com/gpu"] = "2.5"
    with pytest.raises(QuantityError, match="whole number"):
        o.gpus_per_flavor(workload(admission={"podSetAssignments": [usage]}))


def test_it_reads_flavors_per_pod_set_from_the_admission():
    admission = {
        "clusterQueue": "cq-vision",
        "podSetAssignments": [
            {
                "name": "main",
                "flavors": {"nvidia.com/gpu": "a100", "cpu": "default"},
                "resourceUsage": {"nvidia.com/gpu": "8", "cpu": "16"},
            },
            {"name": "aux", "flavors": {"nvidia.com/gpu": "h100"}, "resourceUsage": {}},
        ],
    }
    obj = workload(admission=admission)
    assert o.cluster_queue(obj) == "cq-vision"
    assert o.flavors_by_pod_set(obj) == {
        "main": {"nvidia.com/gpu": "a100", "cpu": "default"},
        "aux": {"nvidia.com/gpu": "h100"},
    }
    assert o.gpus_per_flavor(obj) == {"a100": 8, "h100": 0}
    assert o.flavors_by_pod_set(workload()) == {} and o.gpus_per_flavor(workload()) == {}


def test_it_reads_pods():
    ready = {
        "metadata": {"namespace": "ns", "labels": {"app": "nb"}},
        "status": {"phase": "Running", "conditions": [cond("Ready")]},
    }
    starting = {
        "metadata": {"namespace": "ns", "labels": {"app": "nb"}},
        "status": {"phase": "Running", "conditions": [cond("Ready", "False")]},
    }
    elsewhere = {"metadata": {"namespace": "other", "labels": {"app": "nb"}}}
    assert o.pod_ready(ready) and not o.pod_ready(starting) and o.pod_phase(elsewhere) == ""
    assert o.pods_of([ready, starting, elsewhere], "ns", "app", "nb") == [ready, starting]


def test_bad_or_missing_times_are_none():
    assert o.parse_time("") is None and o.parse_time(None) is None
    assert o.parse_time("yesterday") is None
    assert o.parse_time("2026-11-16T08:00:00.5Z") == datetime(2026, 11, 16, 8, 0, 0, 500000, UTC)


def test_it_reads_the_pods_node_selector_and_gives_up_on_required_affinity():
    obj = workload()
    assert o.node_selector(obj) == {}
    pod_spec = obj["spec"]["podSets"][0]["template"]["spec"]
    pod_spec["nodeSelector"] = {"gpu.nvidia.com/class": "h100"}
    assert o.node_selector(obj) == {"gpu.nvidia.com/class": "h100"}
    required = {"nodeSelectorTerms": [{"matchExpressions": []}]}
    pod_spec["affinity"] = {
        "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": required}
    }
    assert o.node_selector(obj) is None
