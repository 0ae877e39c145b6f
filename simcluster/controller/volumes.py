"""Checkpoint volumes: what a job's pods wrote to a PersistentVolumeClaim outlives them.

A pod that mounts a claim at its ``CHECKPOINT_PATH`` (the portal's batch pods do,
docs/checkpoints.md) writes each checkpoint there as the checkpoint contract says:
written whole, then renamed into place. The simulated process's file is one entry of
the claim's contents, kept on the claim object itself (``simcluster/volume-contents``,
one entry per ``subPath``), so it survives pod restarts, evictions and the simulator's
own snapshots; a pod started again reads it and resumes from it. A checkpoint on an
``emptyDir`` goes with the pod. Pods with no checkpoint volume at all (the generated
demo week's) keep their checkpoints wherever their trainer does, which the simulator
does not model: they resume from their last checkpoint as before.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kueuemodel import format_timestamp, parse_timestamp
from simcluster.server import resources

from . import pods
from .state import Tracked

if TYPE_CHECKING:
    from .controller import Controller

Obj = dict[str, Any]
CLAIMS = resources.by_key("", "persistentvolumeclaims")
CONTENTS = "simcluster/volume-contents"
CHECKPOINT_PATH = "CHECKPOINT_PATH"


@dataclass(frozen=True)
class CheckpointMount:
    """Where a pod's ``CHECKPOINT_PATH`` lives: a claim (and its sub-directory), or scratch."""

    claim: str  # '' for an emptyDir
    sub_path: str = ""

    @property
    def survives(self) -> bool:
        return bool(self.claim)


def checkpoint_mount(pod_spec: Obj) -> CheckpointMount | None:
    """The volume mounted at the pod's ``CHECKPOINT_PATH``; None when it has no such mount."""
    volumes = {v.get("name"): v for v in pod_spec.get("volumes") or []}
    for container in pod_spec.get("containers") or []:
        env = {e.get("name"): e.get("value") for e in container.get("env") or []}
        path = env.get(CHECKPOINT_PATH)
        for mount in container.get("volumeMounts") or []:
            if path and mount.get("mountPath") == path:
                claim = (volumes.get(mount.get("name")) or {}).get("persistentVolumeClaim") or {}
                return CheckpointMount(claim.get("claimName", ""), mount.get("subPath", ""))
    return None


def read_checkpoint(ctl: Controller, namespace: str, mount: CheckpointMount) -> Obj | None:
    """The checkpoint file in ``mount`` of the claim, as the last pod left it."""
    return _contents(ctl, namespace, mount.claim).get(mount.sub_path)


def write_checkpoint(ctl: Controller, namespace: str, mount: CheckpointMount, entry: Obj) -> bool:
    """Replace the file in ``mount`` whole (the contract's write-then-rename); False when
    the claim does not exist (a real pod would not even have started)."""
    if ctl.store.get(("", CLAIMS.plural), (namespace, mount.claim)) is None:
        return False
    contents = {**_contents(ctl, namespace, mount.claim), mount.sub_path: entry}
    patch = {"metadata": {"annotations": {CONTENTS: json.dumps(contents, sort_keys=True)}}}
    return ctl.writer.merge(CLAIMS, namespace, mount.claim, patch) is not None


def _contents(ctl: Controller, namespace: str, claim: str) -> dict[str, Obj]:
    obj = ctl.store.get(("", CLAIMS.plural), (namespace, claim)) or {}
    text = ((obj.get("metadata") or {}).get("annotations") or {}).get(CONTENTS)
    try:
        contents = json.loads(text) if text else {}
    except ValueError:
        return {}  # someone edited the annotation by hand: an empty volume
    return contents if isinstance(contents, dict) else {}


def mount_of(t: Tracked) -> CheckpointMount | None:
    return checkpoint_mount(pods.pod_template_spec(t.owner)) if t.owner else None


def save_checkpoint(ctl: Controller, t: Tracked, at_ms: int) -> None:
    """The running process wrote a checkpoint at ``at_ms``: into its volume, if it has one."""
    mount = mount_of(t)
    if mount is not None and mount.survives:
        write_checkpoint(ctl, t.namespace, mount, {"checkpoint": format_timestamp(at_ms)})


def resume_point(ctl: Controller, t: Tracked, started_ms: int) -> int:
    """Where the pods started again after an eviction pick up the run begun at
    ``started_ms``: its last checkpoint, read back from the checkpoint volume when the
    pods mount one; a checkpoint on an emptyDir went with the pods."""
    mount = mount_of(t)
    if mount is None:
        last = t.checkpoint_ms
    elif not mount.survives:
        last = None
    else:
        entry = read_checkpoint(ctl, t.namespace, mount) or {}
        last = _time_ms(entry.get("checkpoint"))
    return last if last is not None and last >= started_ms else started_ms


def _time_ms(text: str | None) -> int | None:
    try:
        return parse_timestamp(text) if text else None
    except ValueError:
        return None
