"""Demo set-up for notebooks and jobs: the interactive pool, images, profiles, templates,
and the notebooks the seeded cluster already runs.

Runs after ``portal.demo.policy.load_demo`` (it needs the flavors and tiers) and is
idempotent: rows that exist are left as they are.
"""

from __future__ import annotations

from django.db import transaction
from django.utils.dateparse import parse_datetime

from apps.accounts.models import User
from apps.jobs import cluster
from apps.jobs.manifests import OWNER_LABEL
from apps.jobs.models import (
    InteractivePool,
    JobTemplate,
    Notebook,
    NotebookImage,
    NotebookProfile,
    PoolFlavor,
    RoleTierLimit,
)
from apps.jobs.services import NotebookRequest, Principal, adopt_notebook
from apps.jobs.services.pool import save_setting
from apps.queues.kueue import TEAM_LABEL
from apps.queues.models import PriorityTier, ResourceFlavor
from core.kube import KubeClient

IMAGES = [
    ("quay.io/jupyter/pytorch-notebook:cuda12-python-3.11", "PyTorch + CUDA 12"),
    ("quay.io/jupyter/scipy-notebook:python-3.11", "SciPy stack, CPU"),
]
PROFILES = [("small", "4", "32Gi", True), ("large", "16", "128Gi", False)]
TEMPLATES = [
    (
        "pytorch-train",
        "PyTorch training script",
        "nvcr.io/nvidia/pytorch:24.10-py3",
        ["python", "train.py"],
    ),
    (
        "sweep-trial",
        "One hyper-parameter trial",
        "nvcr.io/nvidia/pytorch:24.10-py3",
        ["python", "trial.py"],
    ),
]


@transaction.atomic
def load_jobs_demo(admin) -> None:
    tier = PriorityTier.objects.get(name="p1-high")
    pool = InteractivePool.objects.first()
    if pool is None:
        # A short grace after the idle warning, so the demo shows a cull within minutes
        # (simcluster/demo.py seeds one of alice's notebooks, idle for over an hour).
        pool = InteractivePool(name="interactive", priority_tier=tier, idle_grace_minutes=2)
        save_setting(pool, actor=admin, created=True)
        # The a100 flavor has 8 GPUs no team queue holds: reserve them for notebooks.
        flavor = ResourceFlavor.objects.get(name="a100-80gb")
        entry = PoolFlavor(pool=pool, flavor=flavor, gpus=8, cpu="64", memory="512Gi")
        save_setting(entry, actor=admin, created=True)
    for image, description in IMAGES:
        _ensure(NotebookImage, {"image": image}, {"description": description}, admin)
    for name, cpu, memory, default in PROFILES:
        _ensure(
            NotebookProfile,
            {"name": name},
            {"cpu": cpu, "memory": memory, "is_default": default},
            admin,
        )
    for name, description, image, command in TEMPLATES:
        _ensure(
            JobTemplate,
            {"name": name},
            {"description": description, "image": image, "default_command": command},
            admin,
        )
    for role, tier_name in (("scientist", "p2-standard"), ("lead", "p1-high")):
        _ensure(
            RoleTierLimit,
            {"role": role},
            {"max_tier": PriorityTier.objects.get(name=tier_name)},
            admin,
        )


def adopt_seeded_notebooks(client: KubeClient) -> int:
    """Record the notebooks the seeded cluster runs for demo users, which have no row yet.

    ``simcluster serve --seed-history`` leaves one of alice's notebooks running with idle
    GPUs; it carries the portal's labels (owner, team, notebook), so it is recorded as
    hers since its creation. The status sync then finds it Ready, and the idle-culling
    task, reading its DCGM history from Prometheus, warns and culls it.
    """
    known = set(Notebook.objects.values_list("namespace", "name"))
    adopted = 0
    for statefulset in cluster.notebook_statefulsets(client):
        meta = statefulset["metadata"]
        owner = User.objects.filter(username=meta["labels"].get(OWNER_LABEL)).first()
        if (meta["namespace"], meta["name"]) in known or owner is None:
            continue
        adopt_notebook(
            owner,
            _request_of(statefulset),
            name=meta["name"],
            actor=Principal(owner),
            created_at=parse_datetime(meta["creationTimestamp"]),
        )
        adopted += 1
    return adopted


def _request_of(statefulset: dict) -> NotebookRequest:
    """What its owner would have asked for, read back from the pod template."""
    meta, pod = statefulset["metadata"], statefulset["spec"]["template"]["spec"]
    container = pod["containers"][0]
    limits = container["resources"]["limits"]
    node_labels = pod.get("nodeSelector") or {}
    flavor = next(
        f.flavor.name
        for f in PoolFlavor.objects.select_related("flavor")
        if (f.flavor.node_labels or {}).items() <= node_labels.items()
    )
    profile = NotebookProfile.objects.filter(cpu=limits["cpu"], memory=limits["memory"]).first()
    return NotebookRequest(
        image=container["image"],
        flavor=flavor,
        gpus=int(next(v for k, v in limits.items() if k not in ("cpu", "memory"))),
        profile=profile.name if profile else "",
        team=meta["labels"].get(TEAM_LABEL, ""),
        namespace=meta["namespace"],
        display_name="left open over lunch",
    )


def _ensure(model, keys: dict, values: dict, admin) -> None:
    if not model.objects.filter(**keys).exists():
        save_setting(model(**keys, **values), actor=admin, created=True)
