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
    # The admission model is plain Python: no Django, no app, no cluster harness.
    "kueuemodel": (*DJANGO_WORLD, *CLUSTERS),
    # The product runs against any Kueue cluster: never the simulator or the test plane.
    "apps": CLUSTERS,
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


def test_the_rules_see_function_level_imports(tmp_path):
    module = tmp_path / "hidden.py"
    module.write_text("def late():\n    from simcluster import demo\n    import apps.jobs\n")
    assert imported(module) == {"simcluster", "apps.jobs"}
