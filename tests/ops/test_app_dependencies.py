"""Which app may import which (issue #27): no cycle between apps, and no arrow from one
app to another that ``docs/architecture.md`` does not list with its reason.

A module-level check (``test_import_cycles``) misses a cycle between two apps that runs
through different modules of each: ``accounts.services`` → ``queues.models`` and
``queues.catalog_forms`` → ``accounts.models`` are two acyclic module edges, yet neither
app can be moved, tested or understood without the other. Every import counts,
function-level ones too; tests and migrations are exempt (they drive several apps on
purpose, and migrations name other apps' tables by history).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.ops.test_import_cycles import cycles

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "architecture.md"
SECTION = "### Arrows between apps"
# A row of that section's table: | `jobs` | `queues` | the reason |
ARROW_ROW = re.compile(r"^\|\s*`(\w+)`\s*\|\s*`(\w+)`\s*\|([^|]*)\|\s*$")


def exempt(path: Path, app_dir: Path) -> bool:
    parts = path.relative_to(app_dir).parts
    return (
        "tests" in parts
        or "migrations" in parts
        or path.name.startswith("test_")
        or path.name == "conftest.py"
    )


def app_edges(root: Path) -> dict[tuple[str, str], list[str]]:
    """(importing app, imported app) → where, for every import between two of ``root/apps``."""
    apps_dir = root / "apps"
    apps = {path.parent.name for path in apps_dir.glob("*/__init__.py")}
    edges: dict[tuple[str, str], list[str]] = {}
    for app in sorted(apps):
        for path in sorted((apps_dir / app).rglob("*.py")):
            if exempt(path, apps_dir / app):
                continue
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                for name in _imported_names(node):
                    bits = name.split(".")
                    if len(bits) > 1 and bits[0] == "apps" and bits[1] in apps - {app}:
                        where = f"{path.relative_to(root)}:{node.lineno}"
                        edges.setdefault((app, bits[1]), []).append(where)
    return edges


def _imported_names(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        # ``from apps import queues`` names the app in the alias.
        if node.module == "apps":
            return [f"apps.{alias.name}" for alias in node.names]
        return [node.module]
    return []


def documented_arrows(text: str) -> dict[tuple[str, str], str]:
    """The rows of the table under ``SECTION`` (up to the next heading): (from, to) → reason."""
    section = text.split(SECTION, 1)[1] if SECTION in text else ""
    arrows = {}
    for line in re.split(r"\n#", section, maxsplit=1)[0].splitlines():
        match = ARROW_ROW.match(line)
        if match:
            arrows[(match.group(1), match.group(2))] = match.group(3).strip()
    return arrows


def graph_of(edges) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for source, target in edges:
        graph.setdefault(source, set()).add(target)
        graph.setdefault(target, set())
    return graph


def test_no_two_apps_import_each_other_even_through_other_apps():
    edges = app_edges(ROOT)
    found = cycles(graph_of(edges))
    assert found == [], {
        f"{a} -> {b}": where[:3] for (a, b), where in edges.items() if any(a in c for c in found)
    }


def test_every_arrow_between_apps_is_documented_with_its_reason():
    edges = app_edges(ROOT)
    documented = documented_arrows(DOC.read_text())
    undocumented = {
        f"{a} -> {b}": where[:3] for (a, b), where in edges.items() if (a, b) not in documented
    }
    assert undocumented == {}, "add each to docs/architecture.md's table of app arrows"


def test_every_documented_arrow_exists_and_has_a_reason():
    edges = app_edges(ROOT)
    documented = documented_arrows(DOC.read_text())
    assert sorted(documented.keys() - edges.keys()) == [], (
        "the doc lists arrows the code no longer has"
    )
    assert [arrow for arrow, reason in documented.items() if not reason] == []


def test_the_check_sees_a_cycle_through_a_function_level_import(tmp_path):
    for app, source in {
        "one": "from apps.two.models import Thing\n",
        "two": "def later():\n    from apps import one\n",
        "three": "from apps.one.models import Other\n",
    }.items():
        package = tmp_path / "apps" / app
        (package / "tests").mkdir(parents=True)
        (package / "__init__.py").write_text("")
        (package / "services.py").write_text(source)
        (package / "tests" / "test_it.py").write_text("from apps.three import services\n")
    edges = app_edges(tmp_path)
    assert sorted(edges) == [("one", "two"), ("three", "one"), ("two", "one")]
    assert cycles(graph_of(edges)) == [["one", "two"]]


def test_the_doc_table_is_read_row_by_row():
    text = "\n".join(
        [
            "| `a` | `b` | before the section |",
            SECTION,
            "| from | to | why |",
            "| --- | --- | --- |",
            "| `jobs` | `queues` | teams |",
            "| `x` | `y` |  |",
            "## Next",
            "| `c` | `d` | after it |",
        ]
    )
    assert documented_arrows(text) == {("jobs", "queues"): "teams", ("x", "y"): ""}
