"""A preempted job restarts from the checkpoint file it wrote into its checkpoint volume.

The job runs 4 h of work from 00:00, checkpoints every 30 min, and is preempted at 01:10
by a 1-hour job. Its last checkpoint before that is at 01:00 (M), written to the claim.
By hand: lost = preempted at − M = 01:10 − 01:00 = 600 s, and re-admitted at about 02:10
it still has 4 h − 1 h (saved up to M) = 3 h of work. On scratch space (emptyDir) the
same checkpoint goes with the pods: lost = 01:10 − 00:00 = 4,200 s and all 4 h remain.
"""

from __future__ import annotations

import json

from kubernetes import client

from testkit.live_cluster import (
    NS,
    admitted,
    advance,
    gpu_job,
    is_true,
    job_pods,
    setup_cluster,
    workload_of,
)
from testkit.waiting import wait_until

CLAIM = "quartermaster-checkpoints"
CONTENTS = "simcluster/volume-contents"
LOST = "simcluster/lost-work-seconds"


def _claim() -> client.V1PersistentVolumeClaim:
    return client.V1PersistentVolumeClaim(
        metadata=client.V1ObjectMeta(name=CLAIM, namespace=NS),
        spec=client.V1PersistentVolumeClaimSpec(
            access_modes=["ReadWriteMany"],
            storage_class_name="sim-rwx",
            resources=client.V1VolumeResourceRequirements(requests={"storage": "10Gi"}),
        ),
    )


def _trainer(volume: dict) -> dict:
    """As the portal renders it: CHECKPOINT_PATH is the job's directory of the volume."""
    job = gpu_job(
        "victim",
        duration="4h",
        priority="low",
        annotations={"quartermaster.io/checkpoint-interval": "30m"},
    )
    pod = job["spec"]["template"]["spec"]
    pod["containers"][0]["env"] = [{"name": "CHECKPOINT_PATH", "value": "/checkpoints/runs/a"}]
    pod["containers"][0]["volumeMounts"] = [
        {"name": "checkpoints", "mountPath": "/checkpoints/runs/a", "subPath": "runs/a"}
    ]
    pod["volumes"] = [{"name": "checkpoints", **volume}]
    return job


def _preempt_at_1_10(hooks, batch, custom) -> dict:
    """Run the victim from 00:00 to 01:10, then let a 1-hour urgent job take its GPUs."""
    admitted(custom, "victim")
    advance(hooks, 3600 + 600)
    batch.create_namespaced_job(NS, gpu_job("urgent", duration="1h", priority="high"))
    wait_until(lambda: is_true(workload_of(custom, "victim"), "Preempted"))
    advance(hooks, 1)
    admitted(custom, "urgent")
    return workload_of(custom, "victim")


def _readmitted(hooks, core, custom) -> None:
    advance(hooks, 3600)
    assert is_true(workload_of(custom, "urgent"), "Finished")
    advance(hooks, 1)
    admitted(custom, "victim")
    assert wait_until(lambda: [p for p in job_pods(core, "victim") if p.status.phase == "Running"])


def _finishes_after(hooks, custom, seconds: int) -> None:
    advance(hooks, seconds - 60)
    assert not is_true(workload_of(custom, "victim"), "Finished")
    advance(hooks, 60)
    assert is_true(workload_of(custom, "victim"), "Finished")


def test_a_preempted_job_resumes_from_the_file_in_its_checkpoint_volume(
    live, hooks, core, batch, custom
):
    setup_cluster(core, custom, quota=8)
    core.create_namespaced_persistent_volume_claim(NS, _claim())
    claim = {"persistentVolumeClaim": {"claimName": CLAIM}}
    batch.create_namespaced_job(NS, _trainer(claim))

    victim = _preempt_at_1_10(hooks, batch, custom)
    contents = json.loads(
        core.read_namespaced_persistent_volume_claim(CLAIM, NS).metadata.annotations[CONTENTS]
    )
    assert contents == {"runs/a": {"checkpoint": "2026-01-01T01:00:00Z"}}
    assert victim["metadata"]["annotations"][LOST] == "600"  # 01:10 − 01:00

    _readmitted(hooks, core, custom)
    _finishes_after(hooks, custom, 3 * 3600)  # 4 h − the hour saved up to 01:00


def test_on_scratch_space_the_checkpoint_goes_with_the_pods(live, hooks, core, batch, custom):
    setup_cluster(core, custom, quota=8)
    batch.create_namespaced_job(NS, _trainer({"emptyDir": {}}))

    victim = _preempt_at_1_10(hooks, batch, custom)
    assert victim["metadata"]["annotations"][LOST] == "4200"  # 01:10 − 00:00

    _readmitted(hooks, core, custom)
    _finishes_after(hooks, custom, 4 * 3600)  # nothing was saved
