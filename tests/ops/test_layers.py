"""Which packages may import which (issue #16's layers), read from the source.

Every ``import`` counts, module-level or inside a function: a hidden import is still
a dependency. Tests are exempt (they drive several layers on purpose).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DJANGO_WORLD = ("django", "rest_framework", "celery", "apps", "portal")
CLUSTERS = ("simcluster", "realcluster")
RULES = {
    # The shared layer (errors, permissions, audit, visibility, and the infrastructure:
    # the kubernetes client, watches, metrics, dates, CSV): every feature app builds on
    # it, so it knows none of them, nor the informer, nor the portal that wires them.
    "core": ("apps", "informer", "portal", *CLUSTERS),
    # The admission model is plain Python: no Django, no app, no cluster harness.
    "kueuemodel": (*DJANGO_WORLD, *CLUSTERS),
    # Cluster reads serve the feature apps, which subscribe to it: it imports none, nor
    # the portal above them.
    "informer": ("apps", "portal", *CLUSTERS),
    # The product runs against any Kueue cluster: never the simulator or the test plane.
    # Apps sit below the portal (core <- apps <- portal): what they share is in core.
    "apps": ("portal", *CLUSTERS),
    "portal": CLUSTERS,
    # The simulated cluster is a cluster: it knows nothing of the portal.
    "simcluster": ("apps", "portal", "realcluster"),
}


def imported(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def sources(package: str) -> list[Path]:
    return [
        path
        for path in sorted((ROOT / package).rglob("*.py"))
        if "tests" not in path.relative_to(ROOT).parts
    ]


@pytest.mark.parametrize("package", sorted(RULES))
def test_a_package_imports_only_what_its_layer_allows(package):
    forbidden = RULES[package]
    breaches = sorted(
        f"{path.relative_to(ROOT)} imports {name}"
        for path in sources(package)
        for name in imported(path)
        if name.split(".")[0] in forbidden
    )
    assert breaches == []


# ``portal`` wires the apps together; only these modules of it may import one, each
# for the reason given. Anything else an app needs from another belongs in ``core``.
PORTAL_WIRING = {
    "portal/urls.py": "routes every app's pages and API (and the guarded login forms)",
    "portal/schedule.py": "the Celery beat table, timed by the reports' build hour",
    "portal/demo/seeding.py": "the demo launcher seeds every app",
    "portal/demo/policy.py": "the demo's policy and users are loaded through the queues' "
    "services, as an admin would",
    "portal/demo/notebooks.py": "the demo's notebook pool is loaded, and the notebooks the "
    "seeded cluster runs adopted, through the jobs' services",
    "portal/demo/sweeps.py": "the demo's sweep is submitted through the jobs' services, as "
    "alice would",
    "portal/demo/inference.py": "the demo's inference service is requested through the jobs' "
    "services, as ines would",
    "portal/oidc_backend.py": "single sign-on hands a login's groups to the membership service",
    "portal/http_errors.py": "a token client gets JSON errors on any path: it reads the "
    "Authorization schemes the API's authentication accepts",
    "portal/demo/management/commands/seed_demo.py": "the demo's first start reconciles the "
    "seeded policy and queues the informer",
    "portal/demo/management/commands/finish_demo_week.py": "the demo week's end adopts the "
    "seeded notebooks, submits the demo sweep and inference service, syncs job status and "
    "builds the reports",
}


def test_every_wiring_module_named_exists():
    assert [name for name in PORTAL_WIRING if not (ROOT / name).is_file()] == []


def test_portal_imports_apps_only_to_wire_them():
    importers = {
        str(path.relative_to(ROOT))
        for path in sources("portal")
        if any(name.split(".")[0] == "apps" for name in imported(path))
    }
    assert importers <= PORTAL_WIRING.keys(), sorted(importers - PORTAL_WIRING.keys())


def public_api() -> set[str]:
    """The names ``kueuemodel/__init__.py`` lists in ``__all__``, read from its source."""
    tree = ast.parse((ROOT / "kueuemodel" / "__init__.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "__all__" for target in node.targets
        ):
            return set(ast.literal_eval(node.value))
    raise AssertionError("kueuemodel/__init__.py has no __all__")


def private_model_imports(path: Path, public: set[str]) -> set[str]:
    """Imports of ``kueuemodel`` that go past its public API (a submodule, or a name
    ``__all__`` does not list)."""
    breaches = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            breaches |= {a.name for a in node.names if a.name.startswith("kueuemodel.")}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.startswith("kueuemodel."):
                breaches.add(node.module)
            elif node.module == "kueuemodel":
                breaches |= {f"kueuemodel.{a.name}" for a in node.names if a.name not in public}
    return breaches


@pytest.mark.parametrize(
    "package", [*sorted(RULES.keys() - {"kueuemodel"}), "realcluster", "bench"]
)
def test_outside_kueuemodel_only_its_public_api_is_imported(package):
    public = public_api()
    breaches = sorted(
        f"{path.relative_to(ROOT)} imports {name}"
        for path in sources(package)
        for name in private_model_imports(path, public)
    )
    assert breaches == []


def test_the_public_api_rule_sees_submodules_and_unlisted_names(tmp_path):
    module = tmp_path / "planted.py"
    module.write_text(
        "from kueuemodel import Simulation, model\n"
        "from kueuemodel.clock import parse_timestamp\n"
        "def late():\n    import kueuemodel.quota\n    import kueuemodel\n"
    )
    assert private_model_imports(module, public_api()) == {
        "kueuemodel.model",
        "kueuemodel.clock",
        "kueuemodel.quota",
    }


def test_the_rules_see_function_level_imports(tmp_path):
    module = tmp_path / "hidden.py"
    module.write_text("def late():\n    from simcluster import demo\n    import apps.jobs\n")
    assert imported(module) == {"simcluster", "apps.jobs"}
