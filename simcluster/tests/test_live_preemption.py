"""A higher-priority Job preempts a running one: requeued, suspended, pods gone, loss recorded."""

from __future__ import annotations

from testkit.live_cluster import (
    NS,
    admitted,
    advance,
    condition,
    events_for,
    gpu_job,
    is_true,
    job_pods,
    setup_cluster,
    workload_of,
)
from testkit.waiting import wait_until


def test_it_preempts_and_requeues_a_running_job(live, hooks, core, batch, custom):
    setup_cluster(core, custom, quota=8)
    notes = {"simcluster/checkpoint-interval": "30m"}
    batch.create_namespaced_job(
        NS, gpu_job("victim", duration="4h", priority="low", annotations=notes)
    )
    admitted(custom, "victim")
    advance(hooks, 3600 + 600)
    checkpointed = wait_until(
        lambda: _annotation(workload_of(custom, "victim"), "quartermaster.io/last-checkpoint")
    )
    assert checkpointed == "2026-01-01T01:00:00Z"

    batch.create_namespaced_job(NS, gpu_job("urgent", duration="1h", priority="high"))

    # Evicted, the victim keeps its quota while its pods stop; the preemptor waits.
    stopping = wait_until(lambda: is_true(w := workload_of(custom, "victim"), "Preempted") and w)
    assert is_true(stopping, "QuotaReserved")
    assert condition(workload_of(custom, "urgent"), "QuotaReserved")["reason"] == (
        "WaitingForPreemptedWorkloads"
    )
    advance(hooks, 1)
    preemptor = admitted(custom, "urgent")
    victim = workload_of(custom, "victim")
    assert condition(victim, "Evicted")["reason"] == "Preempted"
    assert is_true(victim, "Requeued")
    assert condition(victim, "QuotaReserved")["status"] == "False"
    assert preemptor["metadata"]["uid"] in condition(victim, "Preempted")["message"]
    assert _annotation(victim, "simcluster/lost-work-seconds") == "600"
    wait_until(lambda: batch.read_namespaced_job("victim", NS).spec.suspend is True)
    wait_until(lambda: not job_pods(core, "victim"))
    reasons = {e.reason: e.message for e in events_for(core, victim["metadata"]["name"])}
    assert preemptor["metadata"]["uid"] in reasons["Preempted"]
    assert "EvictedDueToPreempted" in reasons
    assert any(
        e.reason == "PreemptedWorkload" for e in events_for(core, preemptor["metadata"]["name"])
    )

    advance(hooks, 3600)

    assert is_true(workload_of(custom, "urgent"), "Finished")
    # The parked victim is requeued one requeue batch (1 s) after the release.
    advance(hooks, 1)
    readmitted = admitted(custom, "victim")
    assert wait_until(lambda: [p for p in job_pods(core, "victim") if p.status.phase == "Running"])
    # The checkpoint at 01:00 saved an hour: three of the four hours remain.
    advance(hooks, 3 * 3600)
    assert is_true(workload_of(custom, "victim"), "Finished")
    assert readmitted["status"]["admission"]["clusterQueue"] == "cq"


def _annotation(obj, key):
    return ((obj or {}).get("metadata", {}).get("annotations") or {}).get(key)
