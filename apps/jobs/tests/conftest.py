"""Notebook and job fixtures on top of the shared personas (admin, lead, scientist, …)."""

from __future__ import annotations

import pytest

from apps.accounts.services import issue_api_token
from apps.jobs.choices import LimitedRole
from apps.jobs.models import (
    InteractivePool,
    JobTemplate,
    LauncherGrant,
    NotebookImage,
    NotebookProfile,
    PoolFlavor,
    RoleTierLimit,
)
from apps.jobs.services.pool import save_setting
from apps.queues import services as queue_services
from apps.queues.models import PriorityTier, ResourceFlavor
from conftest import api_as

IMAGE = "registry.example.com/notebooks/pytorch:2.4"


@pytest.fixture
def scientist_mail(settings, scientist):
    """Email goes to Django's in-memory outbox; the scientist has an address; links are absolute."""
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.PORTAL_URL = "https://portal.example.org"
    scientist.email = "sci@example.org"
    scientist.save()


def delivered() -> list:
    """Deliver every stored notification the way the delivery task does; the sent mail."""
    from django.core import mail

    from apps.notifications import services as notifications
    from apps.notifications.models import Notification

    for pk in Notification.objects.values_list("pk", flat=True):
        notifications.deliver(pk)
    return mail.outbox


def _save(obj, admin):
    save_setting(obj, actor=admin, created=True)
    return obj


@pytest.fixture
def tiers(catalog):
    admin = catalog
    for name, value in (("p1-high", 200), ("p3-low", 10), ("interactive", 1000)):
        queue_services.save_priority_tier(name=name, value=value, actor=admin)
    _save(
        RoleTierLimit(
            role=LimitedRole.SCIENTIST, max_tier=PriorityTier.objects.get(name="p2-standard")
        ),
        admin,
    )
    _save(
        RoleTierLimit(role=LimitedRole.LEAD, max_tier=PriorityTier.objects.get(name="p1-high")),
        admin,
    )
    return PriorityTier.objects.all()


@pytest.fixture
def pool(tiers, catalog, team, other_team):
    """8 h100 GPUs reserved for notebooks, defaults otherwise (2 GPUs, 2 notebooks per user)."""
    admin = catalog
    pool = _save(InteractivePool(priority_tier=PriorityTier.objects.get(name="interactive")), admin)
    h100 = ResourceFlavor.objects.get(name="h100")
    _save(PoolFlavor(pool=pool, flavor=h100, gpus=8, cpu="64", memory="512Gi"), admin)
    _save(NotebookImage(image=IMAGE), admin)
    _save(NotebookProfile(name="standard", cpu="4", memory="32Gi", is_default=True), admin)
    return pool


@pytest.fixture
def template(tiers, catalog):
    return _save(
        JobTemplate(
            name="pytorch-train",
            image="registry.example.com/ml/pytorch:2.4",
            default_command=["python", "train.py"],
        ),
        catalog,
    )


@pytest.fixture
def launcher(pool, admin, team):
    """A launcher service user whose token may act for members of ``team``."""
    from apps.queues.tests.factories import UserFactory

    user = UserFactory(username="jupyterhub")
    token, raw = issue_api_token(user, "hub", actor=user)
    grant = _save(LauncherGrant(token=token), admin)
    grant.teams.add(team)
    return {"user": user, "token": token, "raw": raw}


def token_client(raw: str):
    from rest_framework.test import APIClient

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {raw}")
    return client


def notebook_body(**overrides) -> dict:
    return {"image": IMAGE, "flavor": "h100", "gpus": 1, **overrides}


__all__ = ["api_as", "notebook_body", "token_client", "IMAGE"]


@pytest.fixture
def sim(request, tmp_path, settings):
    """A cluster with a live Kueue and two 8-GPU nodes: by default the simulated cluster
    (live controller, real clock); with ``both_clusters`` also the session's real control
    plane (the real Kueue, KWOK nodes), wiped after the test."""
    from apps.queues.tests.cluster import SimCluster
    from apps.queues.tests.real_cluster import RealCluster

    settings.QM_CLUSTER_SYNC = True
    settings.KUEUE_API_VERSION = "v1beta2"
    settings.QM_KUBE_TIMEOUT_SECONDS = 5.0
    if getattr(request, "param", "sim") == "real":
        plane, portal_kubeconfig = request.getfixturevalue("real_control_plane")
        cluster = RealCluster(plane, portal_kubeconfig)
        settings.KUBECONFIG = str(portal_kubeconfig)
    else:
        cluster = SimCluster(tmp_path).start()
        settings.KUBECONFIG = str(cluster.kubeconfig)
    for i in range(2):
        add_node(cluster, f"gpu-{i}")
    yield cluster
    if getattr(request, "param", "sim") == "real":
        cluster.wipe()
    else:
        cluster.stop()


def add_node(
    cluster, name: str, gpus: int = 8, labels: dict | None = None, devices: dict | None = None
) -> None:
    """A Ready node with 8 GPUs (``nvidia.com/gpu``), or the ``devices`` given."""
    from apps.jobs.cluster import ResourceRef

    node_ref = ResourceRef("", "v1", "nodes", "Node", False)
    resources = {"cpu": "128", "memory": "1Ti", "pods": "110"}
    resources.update(devices or {"nvidia.com/gpu": str(gpus)})
    # KWOK keeps annotated nodes Ready on the real control plane; the simulator ignores it.
    meta = {"name": name, "labels": labels or {}, "annotations": {"kwok.x-k8s.io/node": "fake"}}
    with cluster.client() as kube:
        kube.create(node_ref, {"apiVersion": "v1", "kind": "Node", "metadata": meta})
        kube._call(
            "PATCH",
            node_ref,
            "patch",
            node_ref.path("", name) + "/status",
            body={"status": {"capacity": resources, "allocatable": resources}},
            content_type="application/merge-patch+json",
        )


@pytest.fixture(scope="session")
def prometheus():
    from apps.jobs.tests.prometheus_fixture import Prometheus, available

    if not available():
        pytest.skip("prometheus/promtool not installed (apt-get install prometheus)")
    server = Prometheus().start()
    yield server
    server.stop()
