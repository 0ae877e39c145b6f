"""A Kueue-labelled Job runs end to end: Workload, admission, pods on nodes, completion."""

from __future__ import annotations

from testkit.live_cluster import (
    NS,
    admitted,
    advance,
    events_for,
    gpu_job,
    is_true,
    job_pods,
    setup_cluster,
    workload_of,
)
from testkit.waiting import wait_until


def test_it_runs_a_job_from_workload_to_completion(live, hooks, core, batch, custom):
    setup_cluster(core, custom)
    batch.create_namespaced_job(NS, gpu_job("train", pods=2, duration="2h", priority="low"))
    workload = admitted(custom, "train")
    assert workload["metadata"]["name"].startswith("job-train-")
    assert len(workload["metadata"]["name"]) == len("job-train-") + 5
    assert workload["spec"]["podSets"][0]["count"] == 2
    assert workload["spec"]["priority"] == 10
    assert workload["status"]["admission"]["clusterQueue"] == "cq"
    job = wait_until(
        lambda: (j := batch.read_namespaced_job("train", NS)).spec.suspend is False and j
    )
    assert job.spec.template.spec.node_selector == {"gpu.nvidia.com/class": "h100"}
    pods = wait_until(lambda: [p for p in job_pods(core, "train") if p.status.phase == "Running"])
    assert sorted(p.spec.node_name for p in pods) == ["gpu-0", "gpu-1"]
    assert {e.reason for e in events_for(core, workload["metadata"]["name"])} >= {
        "QuotaReserved",
        "Admitted",
    }

    advance(hooks, 2 * 3600)

    finished = wait_until(lambda: is_true(w := workload_of(custom, "train"), "Finished") and w)
    assert finished["status"]["conditions"][-1]["reason"] == "Succeeded"
    assert {p.status.phase for p in job_pods(core, "train")} == {"Succeeded"}
    status = batch.read_namespaced_job_status("train", NS).status
    assert status.succeeded == 2
    assert [c.type for c in status.conditions if c.status == "True"] == [
        "SuccessCriteriaMet",
        "Complete",
    ]


def test_it_runs_a_job_without_duration_until_deleted(live, hooks, core, batch, custom):
    setup_cluster(core, custom)
    batch.create_namespaced_job(NS, gpu_job("serve"))
    name = admitted(custom, "serve")["metadata"]["name"]
    advance(hooks, 30 * 24 * 3600)
    assert not is_true(workload_of(custom, "serve"), "Finished")

    batch.delete_namespaced_job("serve", NS, propagation_policy="Background")

    wait_until(lambda: workload_of(custom, "serve") is None and not job_pods(core, "serve"))
    cq = custom.get_cluster_custom_object_status("kueue.x-k8s.io", "v1beta2", "clusterqueues", "cq")
    assert wait_until(lambda: _usage(custom) == "0")
    assert name.startswith("job-serve-") and cq


def _usage(custom) -> str:
    cq = custom.get_cluster_custom_object_status("kueue.x-k8s.io", "v1beta2", "clusterqueues", "cq")
    return cq["status"]["flavorsUsage"][0]["resources"][0]["total"]


def test_it_refuses_a_job_whose_priority_class_is_missing(live, hooks, core, batch, custom):
    setup_cluster(core, custom)
    batch.create_namespaced_job(NS, gpu_job("typo", priority="urgent"))

    warning = wait_until(
        lambda: [e for e in events_for(core, "typo") if e.reason == "WorkloadPriorityClassNotFound"]
    )
    assert warning[0].type == "Warning"
    assert workload_of(custom, "typo") is None
    assert batch.read_namespaced_job("typo", NS).spec.suspend is True
