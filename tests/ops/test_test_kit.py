"""One test kit (issue 27): what test packages share lives in ``testkit/``, read from the source.

No module imports a ``conftest`` (fixtures are registered once, by the root conftest's
``pytest_plugins``, and asked for by name); a test module imports ``tests`` modules of its
own tests package only (anything shared goes to the kit); and the product never imports
the kit. Every ``import`` counts, module-level or inside a function.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Not ours to check: the virtualenv, git, and what runs leave behind.
SKIPPED_DIRS = {".venv", ".git", "var", "node_modules", "staticfiles", "test-artifacts"}
# Benchmarks build their worlds with the kit's factories, as tests do.
KIT_USERS_OUTSIDE_TESTS = {"bench"}


def module_name(relative: Path) -> str:
    parts = list(relative.with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(source: str) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            # ``from apps.reports.tests import history`` imports a module of that package.
            names += [f"{node.module}.{alias.name}" for alias in node.names]
    return names


def own_tests_package(module: str) -> str | None:
    """``apps.jobs.tests`` for ``apps.jobs.tests.test_pool``; the top-level ``tests/``
    holds several suites (e2e, security, ops, faults), each a package of its own."""
    parts = module.split(".")
    if "tests" not in parts[:-1]:
        return None
    end = parts.index("tests") + 1
    return ".".join(parts[: end + 1 if end == 1 else end])


def may_use_the_kit(module: str) -> bool:
    parts = module.split(".")
    return (
        "tests" in parts
        or parts[0] in ("testkit", *KIT_USERS_OUTSIDE_TESTS)
        or parts[-1] == "conftest"
        or parts[-1].startswith("test_")
    )


def breaches(module: str, source: str) -> list[str]:
    """What ``module`` (dotted, e.g. ``apps.jobs.tests.test_pool``) imports against the rule."""
    found = []
    own = own_tests_package(module)
    for name in imported(source):
        parts = name.split(".")
        if "conftest" in parts:
            found.append(f"{module} imports {name}: fixtures are asked for by name")
        elif "tests" in parts and not (own and (name == own or name.startswith(own + "."))):
            found.append(f"{module} imports {name}: shared test code goes to testkit/")
        elif parts[0] == "testkit" and not may_use_the_kit(module):
            found.append(f"{module} imports {name}: the product never uses the test kit")
    return found


def python_modules() -> list[Path]:
    return [
        path
        for path in sorted(ROOT.rglob("*.py"))
        if not SKIPPED_DIRS & set(path.relative_to(ROOT).parts)
    ]


def test_no_module_imports_a_conftest_another_tests_package_or_the_kit_from_the_product():
    found = [
        breach
        for path in python_modules()
        for breach in breaches(module_name(path.relative_to(ROOT)), path.read_text())
    ]
    assert found == []


def test_the_rule_sees_conftests_foreign_tests_modules_and_the_kit_in_the_product():
    assert breaches("apps.live.tests.test_x", "from apps.jobs.tests.conftest import pool\n")
    assert breaches("apps.jobs.tests.test_x", "def f():\n    from conftest import api_as\n")
    assert breaches("apps.jobs.tests.test_x", "import apps.queues.tests.factories\n")
    assert breaches("informer.tests.test_x", "from apps.reports.tests import workloads\n")
    assert breaches("tests.e2e.test_x", "from tests.security.urls import url_names\n")
    assert breaches("testkit.clusters", "from apps.queues.tests.cluster import SimCluster\n")
    assert breaches("apps.queues.services", "from testkit.factories import make_team\n")
    assert breaches("conftest", "from tests import tiers\n")


def test_the_rule_lets_a_package_use_its_own_tests_modules_and_tests_use_the_kit():
    allowed = {
        "apps.queues.tests.test_x": "from apps.queues.tests.crd_schema import schema_errors\n",
        "tests.security.test_x": "from tests.security.urls import url_names\n",
        "tests.e2e.conftest": "from tests.e2e.browser import ARTIFACTS\n",
        "apps.jobs.tests.test_x": "from testkit.factories import quota\nimport testkit.waiting\n",
        "conftest": "from testkit import tiers\n",
        "bench.notebook_api": "from testkit.factories import make_team\n",
        "apps.queues.services": "from apps.queues.models import Queue\n",
    }
    assert {module: breaches(module, source) for module, source in allowed.items()} == {
        module: [] for module in allowed
    }
