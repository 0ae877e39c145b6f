"""What every test runs under: the test kit's fixtures, fresh caches and counters,
and the tiers (simulated cluster first, the real control plane after)."""

import uuid

import pytest

from testkit import tiers

# The test kit's fixtures, by name in every test package (testkit/fixtures/).
pytest_plugins = [
    "testkit.fixtures.personas",
    "testkit.fixtures.clients",
    "testkit.fixtures.clusters",
    "testkit.fixtures.notebooks",
    "testkit.fixtures.inference",
    "testkit.fixtures.live",
    "testkit.fixtures.workers",
    "testkit.fixtures.prometheus",
]


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
