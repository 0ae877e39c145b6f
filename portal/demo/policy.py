"""The demo's policy and people for the embedded default (`make run`): flavors, cohorts,
priority tiers, four teams with queues and envelopes, and the users of ``logins``.

Loaded through the services, so the demo also exercises validation and audit.
Idempotent: running it again changes nothing.
"""

from __future__ import annotations

from django.conf import settings
from django.db import transaction

from apps.accounts.models import User
from apps.queues import services
from apps.queues.models import Queue, Team
from apps.queues.snapshots import queue_snapshot
from core.roles import TeamRole
from portal.demo.logins import LOGINS, DemoLogin


class DemoRefused(Exception):
    """The demo may not be loaded here."""


def refuse_in_production() -> None:
    """The demo's users have published passwords: only the embedded default may have them."""
    if settings.QM_ENV == "production":
        raise DemoRefused(
            "refusing to load the demo: QM_ENV=production. The demo creates users whose "
            "passwords are published (admin / admin-demo-pass, …); it is for the embedded "
            "default (make run) only. Create real users instead (OIDC, or Django admin)."
        )


FLAVORS = [
    (
        "h100-80gb",
        "NVIDIA H100 80GB HBM3",
        {"nvidia.com/gpu": "64"},
        {"gpu.nvidia.com/class": "h100"},
    ),
    (
        "a100-80gb",
        "NVIDIA A100-SXM4-80GB",
        {"nvidia.com/gpu": "32"},
        {"gpu.nvidia.com/class": "a100"},
    ),
    (
        "a100-mig-1g10gb",
        "NVIDIA A100 MIG 1g.10gb",
        {"nvidia.com/mig-1g.10gb": "56"},
        {"gpu.nvidia.com/class": "a100-mig"},
    ),
]
# The a100 nodes sit two to a rack (simcluster/demo.py's TOPOLOGY): "same rack" jobs.
TOPOLOGY_LEVELS = {
    "a100-80gb": [
        {"name": "rack", "node_label": "example.com/rack"},
        {"name": "host", "node_label": "kubernetes.io/hostname"},
    ]
}
TIERS = [
    ("p0-critical", 1000, "Production inference only (docs/inference.md).", True),
    ("p1-high", 500, "Interactive notebooks and urgent experiments.", False),
    ("p2-standard", 100, "Normal training and fine-tuning.", False),
    ("p3-best-effort", 10, "Sweeps and backfill; first to be preempted.", False),
]
# Its queues are production queues: they never borrow or lend (docs/inference.md).
PRODUCTION_COHORT = "gpu-production"
TEAMS = [
    (
        "vision",
        "Computer Vision",
        "cc-1001",
        "gpu-research",
        [("h100-80gb", "nvidia.com/gpu", "24"), ("a100-80gb", "nvidia.com/gpu", "8")],
    ),
    (
        "nlp",
        "Language Models",
        "cc-1002",
        "gpu-research",
        [("h100-80gb", "nvidia.com/gpu", "32"), ("a100-80gb", "nvidia.com/gpu", "8")],
    ),
    (
        "speech",
        "Speech",
        "cc-1003",
        "gpu-research",
        [("a100-80gb", "nvidia.com/gpu", "8"), ("a100-mig-1g10gb", "nvidia.com/mig-1g.10gb", "28")],
    ),
    (
        "inference",
        "Inference Platform",
        "cc-2001",
        "gpu-production",
        [("h100-80gb", "nvidia.com/gpu", "8"), ("a100-mig-1g10gb", "nvidia.com/mig-1g.10gb", "28")],
    ),
]
FAIR_BETWEEN_USERS = "vision"
MEMBERS = [
    ("vera", "vision", TeamRole.LEAD),
    ("nils", "nlp", TeamRole.LEAD),
    ("alice", "vision", TeamRole.SCIENTIST),
    ("bob", "nlp", TeamRole.SCIENTIST),
    ("ines", "inference", TeamRole.SCIENTIST),
]


@transaction.atomic
def load_demo() -> list[DemoLogin]:
    refuse_in_production()
    admin = _users()
    for name, model, capacity, labels in FLAVORS:
        services.save_flavor(
            name=name,
            gpu_model=model,
            capacity=capacity,
            node_labels=labels,
            topology_levels=TOPOLOGY_LEVELS.get(name),
            actor=admin,
        )
    services.save_cohort(name="gpu-pool", actor=admin, description="Everything on the cluster")
    for child in ("gpu-research", "gpu-production"):
        services.save_cohort(name=child, parent="gpu-pool", actor=admin)
    for name, value, description, inference_only in TIERS:
        services.save_priority_tier(
            name=name,
            value=value,
            description=description,
            inference_only=inference_only,
            actor=admin,
        )
    for slug, title, cost_center, cohort, quotas in TEAMS:
        _team(admin, slug, title, cost_center, cohort, quotas)
    for username, slug, role in MEMBERS:
        services.add_membership(
            team=Team.objects.get(slug=slug),
            user=User.objects.get(username=username),
            role=role,
            actor=admin,
        )
    return LOGINS


def _users() -> User:
    for login in LOGINS:
        user, created = User.objects.get_or_create(username=login.username)
        if created:
            user.set_password(login.password)
            user.is_platform_admin = user.is_staff = user.is_superuser = login.username == "admin"
            user.save()
    return User.objects.get(username="admin")


def _team(admin: User, slug: str, title: str, cost_center: str, cohort: str, quotas: list) -> None:
    team = Team.objects.filter(slug=slug).first()
    if team is None:
        team = services.create_team(
            slug=slug,
            display_name=title,
            cost_center=cost_center,
            namespaces=[f"team-{slug}"],
            actor=admin,
        )
    production = cohort == PRODUCTION_COHORT
    queue = Queue.objects.filter(name=slug).first() or services.create_queue(
        name=slug, team=team, actor=admin, reason="demo", production=production
    )
    limit = "0" if production else None
    proposal = {
        "cohort": cohort,
        # One team's queue orders its members by recent usage, so the team page shows
        # Kueue's figures (``docs/fair-sharing-between-users.md``).
        "fair_between_users": slug == FAIR_BETWEEN_USERS,
        "preemption": {
            "reclaim_within_cohort": "Any",
            "within_cluster_queue": "LowerPriority",
            "borrow_within_cohort": "Never",
            "borrow_max_priority_threshold": None,
        },
        "quotas": [
            {
                "flavor": f,
                "resource": r,
                "nominal": n,
                "borrowing_limit": limit,
                "lending_limit": limit,
            }
            for f, r, n in quotas
        ],
    }
    current = queue_snapshot(Queue.objects.with_policy().get(pk=queue.pk))
    services.save_queue_policy(
        queue, proposal, actor=admin, expected_version=current["version"], reason="demo"
    )
    limits = [
        {"flavor": f, "resource": r, "max_nominal": str(int(n) + 8), "max_borrowing": "16"}
        for f, r, n in quotas
    ]
    services.save_envelope(team=team, actor=admin, min_weight="0.5", max_weight="2", limits=limits)
