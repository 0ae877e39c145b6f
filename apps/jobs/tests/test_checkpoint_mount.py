"""Where a batch pod's CHECKPOINT_PATH lives: the team's checkpoint claim when the
admin named a storage class (so a restarted pod finds its checkpoints), else today's
scratch emptyDir."""

from __future__ import annotations

from django.test import override_settings

from apps.jobs import manifests
from apps.jobs.checkpoint_volume import checkpoints_survive_restarts, mounted_claim


def _pod(claim: str) -> dict:
    spec = manifests.JobSpec(
        name="train-7",
        namespace="team-vision",
        team="vision",
        owner="alice",
        queue="vision",
        priority_class="p2-standard",
        image="registry.example.org/train:1",
        command=("python", "train.py"),
        gpu_resource="nvidia.com/gpu",
        gpus_per_pod=1,
        pods=2,
        checkpoint_dir="runs/a",
        checkpoint_interval_seconds=900,
        checkpoint_claim=claim,
    )
    return manifests.render_job(spec)["spec"]["template"]["spec"]


def _checkpoints(pod: dict) -> tuple[dict, dict]:
    (mount,) = [m for m in pod["containers"][0]["volumeMounts"] if m["name"] == "checkpoints"]
    (volume,) = [v for v in pod["volumes"] if v["name"] == "checkpoints"]
    return mount, volume


def test_the_job_mounts_its_own_directory_of_the_team_claim_at_checkpoint_path():
    pod = _pod("quartermaster-checkpoints")
    mount, volume = _checkpoints(pod)
    assert volume == {
        "name": "checkpoints",
        "persistentVolumeClaim": {"claimName": "quartermaster-checkpoints"},
    }
    assert mount == {"name": "checkpoints", "mountPath": "/checkpoints/runs/a", "subPath": "runs/a"}
    env = pod["containers"][0]["env"]
    assert {"name": "CHECKPOINT_PATH", "value": "/checkpoints/runs/a"} in env


def test_without_a_claim_the_checkpoints_are_on_scratch_space():
    mount, volume = _checkpoints(_pod(""))
    assert volume == {"name": "checkpoints", "emptyDir": {}}
    assert mount["mountPath"] == "/checkpoints/runs/a"


@override_settings(QM_CHECKPOINT_STORAGE_CLASS="cephfs-rwx", QM_CHECKPOINT_CLAIM="")
def test_a_storage_class_means_the_claim_the_reconciler_makes():
    assert mounted_claim() == "quartermaster-checkpoints"
    assert checkpoints_survive_restarts()


@override_settings(QM_CHECKPOINT_STORAGE_CLASS="", QM_CHECKPOINT_CLAIM="ckpt-by-hand")
def test_without_a_storage_class_an_admins_own_claim_is_mounted():
    assert mounted_claim() == "ckpt-by-hand"


@override_settings(QM_CHECKPOINT_STORAGE_CLASS="", QM_CHECKPOINT_CLAIM="")
def test_with_neither_checkpoints_do_not_survive_a_restart():
    assert mounted_claim() == ""
    assert not checkpoints_survive_restarts()
