"""Dead code: definitions outside the tests that nothing uses, the tests included.

`make lint` runs this with vulture. The tests count as users (a helper they call is
alive) but are not reported themselves: vulture takes a fixture requested by name for
an unused argument. Names a framework reaches by reflection are found here or listed in
scripts/vulture_whitelist.py: strings that name something, keyword arguments (model
fields given to the ORM) and every word of a template or script count as uses.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path

import vulture

ROOT = Path(__file__).resolve().parent.parent
SCANNED = [
    "apps", "core", "informer", "kueuemodel", "portal", "simcluster", "realcluster",
    "bench", "scripts", "tests", "testkit", "conftest.py", "manage.py",
]  # fmt: skip
WHITELIST = ROOT / "scripts" / "vulture_whitelist.py"
EXCLUDED = ["*/migrations/*"]
# Modules their framework reads by name: every top-level name in them is a setting.
CONFIG_MODULES = {"portal/settings.py", "portal/gunicorn.py", "bench/floor_settings.py"}
# Decorators that register the function with a framework, which then calls it.
REGISTERING_DECORATORS = [
    "@receiver", "@*.connect", "@checks.register", "@register.filter", "@admin.register",
    "@admin.action", "@action",
]  # fmt: skip
# Names Django, DRF and the standard library call by convention, wherever they are defined.
CONVENTIONAL_NAMES = [
    "Meta", "ordering", "constraints", "indexes", "abstract", "verbose_name*", "app_name",
    "default_auto_field", "*Config", "*Admin", "list_*", "search_fields", "readonly_fields",
    "inlines", "save_model", "delete_model", "has_*_permission", "clean_*", "field_order",
    "get_*", "lookup_*", "retrieve", "destroy", "Command", "add_arguments", "handle",
    "do_*", "log_message", "pytestmark",
]  # fmt: skip
DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
NAME = re.compile(r"[A-Za-z_]\w*")


def is_test_file(path: Path) -> bool:
    # The test kit is test code: its fixtures are used by name, which vulture cannot see.
    in_tests = "tests" in path.parts or path.parts[:1] == ("testkit",)
    return in_tests or path.name == "conftest.py" or path.name.startswith("test_")


def python_files(path: Path) -> list[Path]:
    found = [path] if path.is_file() else sorted(path.rglob("*.py"))
    return [file for file in found if "migrations" not in file.parts]


def names_in_code(paths: list[Path]) -> set[str]:
    """Names code reaches without naming them: a string that is one name (a serializer's
    ``fields``, ``update_fields``, ``getattr``), the last part of a dotted path
    ("apps.jobs.tasks.expire_notebooks_task"), and a keyword argument (a model field given
    to ``create()``, or ``filter(lease_until__lt=…)``)."""
    names = set()
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            text = node.value if isinstance(node, ast.Constant) else None
            if isinstance(text, str) and (NAME.fullmatch(text) or DOTTED.fullmatch(text)):
                names.add(text.rsplit(".", 1)[-1])
            elif isinstance(node, ast.keyword) and node.arg:
                names.add(node.arg.split("__", 1)[0])
    return names


def names_in_pages() -> set[str]:
    """Every word of the templates and scripts: attributes and API fields they read."""
    pages = [*ROOT.glob("**/templates/**/*.html"), *ROOT.glob("static/js/**/*.js")]
    return {
        word
        for page in pages
        if ".venv" not in page.parts
        for word in NAME.findall(page.read_text())
    }


def dead_code(min_confidence: int) -> list[vulture.core.Item]:
    scanner = vulture.Vulture(
        ignore_names=CONVENTIONAL_NAMES, ignore_decorators=REGISTERING_DECORATORS
    )
    scanner.scavenge([str(ROOT / p) for p in SCANNED] + [str(WHITELIST)], exclude=EXCLUDED)
    sources = [path for name in SCANNED for path in python_files(ROOT / name)]
    for name in names_in_code(sources) | names_in_pages():
        scanner.used_names.add(name)
    return [
        item
        for item in scanner.get_unused_code(min_confidence=min_confidence)
        if not is_test_file(Path(item.filename).relative_to(ROOT))
        and str(Path(item.filename).relative_to(ROOT)) not in CONFIG_MODULES
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    # 60 is vulture's confidence for an unused function, class or attribute; anything
    # higher would only see unused imports and variables, which ruff already finds.
    parser.add_argument("--min-confidence", type=int, default=60)
    args = parser.parse_args()
    unused = dead_code(args.min_confidence)
    for item in unused:
        print(item.get_report().replace(str(ROOT) + "/", ""))
    return 1 if unused else 0


if __name__ == "__main__":
    sys.exit(main())
