"""Demo set-up for notebooks and jobs: the interactive pool, images, profiles, templates.

Runs after ``apps.queues.demo.load_demo`` (it needs the flavors and tiers) and is
idempotent: rows that exist are left as they are.
"""

from __future__ import annotations

from django.db import transaction

from apps.jobs.models import (
    InteractivePool,
    JobTemplate,
    NotebookImage,
    NotebookProfile,
    PoolFlavor,
    RoleTierLimit,
)
from apps.jobs.services.pool import save_setting
from apps.queues.models import PriorityTier, ResourceFlavor

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
        pool = InteractivePool(name="interactive", priority_tier=tier)
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


def _ensure(model, keys: dict, values: dict, admin) -> None:
    if not model.objects.filter(**keys).exists():
        save_setting(model(**keys, **values), actor=admin, created=True)
