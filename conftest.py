"""Personas shared by every test: an admin, a team lead, a scientist, a lead of
another team, and an outsider, around one small catalog."""

import uuid

import pytest
from rest_framework.test import APIClient

from apps.queues import services
from apps.queues.tests.factories import (
    UserFactory,
    make_admin,
    make_flavor,
    make_queue,
    make_team,
    quota,
)
from core.roles import TeamRole
from tests import tiers


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    # PBKDF2's deliberate slowness would dominate a suite that logs in hundreds of times.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup):
    yield
    # The API token cache's listener holds a connection to the test database, which
    # would keep it from being dropped.
    from apps.accounts import token_cache

    token_cache.stop()


@pytest.fixture(autouse=True)
def _fresh_token_cache():
    # Rolled-back tests leave no trigger behind: start every test with an empty cache.
    from apps.accounts import token_cache

    token_cache.invalidate()


@pytest.fixture(autouse=True)
def _fresh_rate_limits():
    # API throttles count in the local-memory cache; each test starts with none used.
    from django.core.cache import cache

    cache.clear()


@pytest.fixture
def throttle_clock(monkeypatch):
    """Pin the API throttles' clock 15 s into a window. A burst that straddles two
    windows meets the sliding estimate, which lets up to the previous window's count
    through again: a test of "N then refused" must not depend on the wall clock."""
    from portal.throttling import AnonRate, UserRate

    for throttle in (AnonRate, UserRate):
        monkeypatch.setattr(throttle, "timer", staticmethod(lambda: 6015.0))


@pytest.fixture(autouse=True)
def _fresh_login_counters(settings):
    # Sign-in failures count in the shared cache (Redis with REDIS_URL), which outlives a
    # test and is not ours to flush: each test counts under a prefix of its own.
    shared = {**settings.CACHES["shared"], "KEY_PREFIX": f"test-{uuid.uuid4().hex}"}
    settings.CACHES = {**settings.CACHES, "shared": shared}


def pytest_addoption(parser):
    parser.addoption(
        "--tier",
        choices=("all", "sim", "real"),
        default="all",
        help="sim: only tests that need no real control plane; real: only those that do "
        "(and the checks after them). make test runs sim while the control plane builds.",
    )


def _tier(item) -> int:
    if item.get_closest_marker("after_real_tier"):
        return 2
    return 1 if "[real" in item.nodeid else 0


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    # The real control plane starts once, for the tests that need it, at the end; then
    # the checks of what those tests did to it (``after_real_tier``).
    # Only a run of the whole suite (pytest's testpaths, nothing deselected by -k or -m)
    # has run every real-cluster test; ``--tier real`` leaves none of them out.
    whole = config.args_source == pytest.Config.ArgsSource.TESTPATHS
    config.stash[tiers.REAL_TIER_COMPLETE] = whole and not config.stash.get(tiers.DESELECTED, False)
    wanted = {"all": {0, 1, 2}, "sim": {0}, "real": {1, 2}}[config.getoption("tier")]
    kept = [item for item in items if _tier(item) in wanted]
    if len(kept) < len(items):
        config.hook.pytest_deselected(items=[item for item in items if _tier(item) not in wanted])
        items[:] = kept
    items.sort(key=_tier)  # stable: each tier keeps its order


def pytest_deselected(items):
    if items:
        items[0].config.stash[tiers.DESELECTED] = True


def pytest_generate_tests(metafunc):
    # Tests marked ``both_clusters`` run against the simulated and the real control plane;
    # the cluster fixtures (``cluster``, ``sim``) read which one from ``request.param``.
    if not metafunc.definition.get_closest_marker("both_clusters"):
        return
    for name in ("cluster", "sim"):
        if name in metafunc.fixturenames:
            metafunc.parametrize(name, ["sim", "real"], indirect=True)


@pytest.fixture(scope="session")
def real_control_plane(tmp_path_factory):
    """kube-apiserver, etcd, controllers, KWOK and the real Kueue, once per session;
    with the portal's ServiceAccount and its deployed ClusterRole."""
    from apps.queues.tests.real_cluster import PORTAL_USER, grant_portal
    from realcluster.controlplane import ControlPlane

    workdir = tmp_path_factory.mktemp("realcluster")
    plane = ControlPlane(workdir, audited_users=(PORTAL_USER,)).up()
    try:
        yield plane, grant_portal(plane, plane.workdir / "portal.kubeconfig")
    finally:
        plane.down()


@pytest.fixture
def admin(db):
    return make_admin()


@pytest.fixture
def catalog(admin):
    """Flavors h100 (64 GPUs) and a100 (32 GPUs, plus 56 MIG slices); a cohort."""
    make_flavor(admin, "h100", {"nvidia.com/gpu": "64"})
    make_flavor(admin, "a100", {"nvidia.com/gpu": "32", "nvidia.com/mig-1g.10gb": "56"})
    services.save_cohort(name="research", actor=admin)
    services.save_priority_tier(name="p2-standard", value=100, actor=admin)
    return admin


@pytest.fixture
def team(catalog):
    return make_team(catalog, "vision")


@pytest.fixture
def other_team(catalog):
    return make_team(catalog, "nlp")


@pytest.fixture
def queue(catalog, team):
    return make_queue(
        catalog, team, cohort="research", quotas=[quota("h100", "16"), quota("a100", "8")]
    )


@pytest.fixture
def other_queue(catalog, other_team):
    return make_queue(catalog, other_team, cohort="research", quotas=[quota("h100", "16")])


@pytest.fixture
def lead(team, admin):
    user = UserFactory(username="lead")
    services.add_membership(team=team, user=user, role=TeamRole.LEAD, actor=admin)
    return user


@pytest.fixture
def scientist(team, admin):
    user = UserFactory(username="scientist")
    services.add_membership(team=team, user=user, role=TeamRole.SCIENTIST, actor=admin)
    return user


@pytest.fixture
def other_lead(other_team, admin):
    user = UserFactory(username="otherlead")
    services.add_membership(team=other_team, user=user, role=TeamRole.LEAD, actor=admin)
    return user


@pytest.fixture
def envelope(team, admin):
    """The vision lead may go up to 24 h100 GPUs and borrow up to 8, weight 0.5–2."""
    return services.save_envelope(
        team=team,
        actor=admin,
        min_weight="0.5",
        max_weight="2",
        limits=[
            {
                "flavor": "h100",
                "resource": "nvidia.com/gpu",
                "max_nominal": "24",
                "max_borrowing": "8",
            }
        ],
    )


@pytest.fixture
def api():
    return APIClient()


def api_as(user) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client
