"""One error vocabulary (issue #27): the kinds of ``DomainError`` and their codes are
declared once, in ``core/errors.py``, and ``docs/architecture.md`` lists every code.

An app with a class of its own (a ``JobsError`` with its own table) splits the
vocabulary: code that catches ``NotAllowed`` misses its "forbidden", and two tables can
give one code two statuses.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from core.errors import CODES

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("apps", "core", "informer", "portal")
HOME = ROOT / "core" / "errors.py"
DOC = ROOT / "docs" / "architecture.md"
# | `not_a_member` | 403 | `NotAllowed` | meaning |
CODE_ROW = re.compile(r"^\|\s*`(\w+)`\s*\|\s*(\d{3})\s*\|\s*`(\w+)`\s*\|")


def class_bases(paths: list[Path]) -> dict[str, tuple[Path, set[str]]]:
    """Every class defined in ``paths``: its name → (file, the names of its bases)."""
    found = {}
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ClassDef):
                bases = {ast.unparse(base).split(".")[-1] for base in node.bases}
                found[node.name] = (path, bases)
    return found


def domain_error_classes(classes: dict[str, tuple[Path, set[str]]]) -> dict[str, Path]:
    """The classes that descend from ``DomainError``, by name, through any chain."""
    family = {"DomainError": HOME}
    grew = True
    while grew:
        grew = False
        for name, (path, bases) in classes.items():
            if name not in family and bases & family.keys():
                family[name] = path
                grew = True
    return family


def sources() -> list[Path]:
    return [
        path
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if "tests" not in path.relative_to(ROOT).parts
    ]


def test_every_kind_of_domain_error_is_declared_in_core_errors():
    family = domain_error_classes(class_bases(sources()))
    elsewhere = sorted(
        f"{name} in {path.relative_to(ROOT)}" for name, path in family.items() if path != HOME
    )
    assert elsewhere == []


def test_the_reader_follows_a_chain_of_subclasses(tmp_path):
    module = tmp_path / "errors.py"
    module.write_text(
        "from core import errors\n"
        "class AppError(errors.DomainError): pass\n"
        "class TokenError(AppError): pass\n"
        "class Unrelated(ValueError): pass\n"
    )
    assert set(domain_error_classes(class_bases([module]))) == {
        "DomainError",
        "AppError",
        "TokenError",
    }


def test_the_docs_list_every_code_with_its_status_and_kind():
    documented = {
        match.group(1): (int(match.group(2)), match.group(3))
        for line in DOC.read_text().split("## Errors", 1)[1].splitlines()
        if (match := CODE_ROW.match(line))
    }
    assert documented == {code: (row.status, row.kind.__name__) for code, row in CODES.items()}
