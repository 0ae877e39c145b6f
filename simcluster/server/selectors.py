"""Label and field selectors, parsed from query strings into predicates.

Label selector syntax follows the Kubernetes one: ``a=b``, ``a==b``, ``a!=b``,
``a in (x,y)``, ``a notin (x,y)``, ``a`` (exists), ``!a`` (does not exist),
comma-separated and all required. Field selectors accept ``=``, ``==`` and
``!=`` on any dotted path (``metadata.name``, ``spec.nodeName``, …).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from simcluster.server.errors import bad_request

Predicate = Callable[[dict[str, Any]], bool]

_SET_RE = re.compile(r"^(\S+)\s+(in|notin)\s+\((.*)\)$")
_EQ_RE = re.compile(r"^([^=!<>\s]+)\s*(==|=|!=|>|<)\s*(\S*)$")
_KEY_RE = re.compile(r"^(!?)\s*([^=!<>\s(),]+)$")


@dataclass(frozen=True)
class Requirement:
    """One clause of a label selector."""

    key: str
    operator: str  # in, notin, exists, !, gt, lt
    values: frozenset[str] = frozenset()

    def matches(self, labels: Mapping[str, str]) -> bool:
        present = self.key in labels
        value = labels.get(self.key)
        if self.operator == "in":
            return present and value in self.values
        if self.operator == "notin":
            return not present or value not in self.values
        if self.operator == "exists":
            return present
        if self.operator == "!":
            return not present
        return present and _compare_int(value, self.operator, next(iter(self.values)))


def _compare_int(value: str | None, operator: str, bound: str) -> bool:
    try:
        left, right = int(value or ""), int(bound)
    except ValueError:
        return False
    return left > right if operator == "gt" else left < right


def split_clauses(text: str) -> list[str]:
    """Split on commas that are not inside ``( … )`` value sets."""
    clauses, depth, current = [], 0, []
    for char in text:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            clauses.append("".join(current).strip())
            current = []
        else:
            current.append(char)
    clauses.append("".join(current).strip())
    return [clause for clause in clauses if clause]


def parse_requirement(clause: str) -> Requirement:
    """Parse one label selector clause; BadRequest on syntax errors."""
    if match := _SET_RE.match(clause):
        values = frozenset(v.strip() for v in match.group(3).split(",") if v.strip())
        return Requirement(match.group(1), match.group(2), values)
    if match := _EQ_RE.match(clause):
        operator = {"=": "in", "==": "in", "!=": "notin", ">": "gt", "<": "lt"}[match.group(2)]
        return Requirement(match.group(1), operator, frozenset([match.group(3)]))
    if match := _KEY_RE.match(clause):
        return Requirement(match.group(2), "!" if match.group(1) else "exists")
    raise bad_request(f"unable to parse requirement: {clause!r}")


def parse_label_selector(text: str | None) -> list[Requirement]:
    return [parse_requirement(clause) for clause in split_clauses(text or "")]


def labels_match(requirements: list[Requirement], labels: Mapping[str, str] | None) -> bool:
    return all(req.matches(labels or {}) for req in requirements)


def _field_value(obj: dict[str, Any], path: str) -> str:
    value: Any = obj
    for part in path.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    if value is None:
        return ""
    return str(value).lower() if isinstance(value, bool) else str(value)


def parse_field_selector(text: str | None) -> list[tuple[str, bool, str]]:
    """``(path, wanted_equal, value)`` triples for each clause."""
    triples = []
    for clause in split_clauses(text or ""):
        match = re.match(r"^([\w.\-/]+)\s*(==|=|!=)\s*(.*)$", clause)
        if not match:
            raise bad_request(f"invalid field selector: {clause!r}")
        triples.append((match.group(1), match.group(2) != "!=", match.group(3).strip()))
    return triples


def fields_match(triples: list[tuple[str, bool, str]], obj: dict[str, Any]) -> bool:
    return all((_field_value(obj, path) == value) == equal for path, equal, value in triples)


def build_predicate(label_selector: str | None, field_selector: str | None) -> Predicate:
    """One predicate combining both selectors (parsed eagerly so errors surface now)."""
    requirements = parse_label_selector(label_selector)
    triples = parse_field_selector(field_selector)

    def predicate(obj: dict[str, Any]) -> bool:
        labels = (obj.get("metadata") or {}).get("labels")
        return labels_match(requirements, labels) and fields_match(triples, obj)

    return predicate
