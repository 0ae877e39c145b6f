"""A tiny structural-schema language: types, limits, defaults and pruning.

Our Kueue kinds are described with these nodes in ``kueue_schemas.py`` (written
by hand from the documented API, not loaded from the CRDs). Each node can
``normalize`` a value (drop unknown fields, fill defaults — what the API server
does before validating) and ``check`` it, appending field errors.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kueuemodel import QuantityError, quantity_value
from simcluster.server.errors import Cause
from simcluster.server.validation import causes as c

Rule = Callable[[Any, str], list[Cause]]
# The pattern the Kueue CRDs put on every quantity field (the API server's message quotes it).
QUANTITY_PATTERN = re.compile(
    r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))"
    r"(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$"
)
MISSING: Any = object()


def child(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


class Node:
    """Base node: accepts anything, keeps it as is."""

    default: Any = MISSING

    def normalize(self, value: Any, path: str, unknown: list[str]) -> Any:
        return value

    def check(self, value: Any, path: str, out: list[Cause]) -> None:
        return None


class Preserve(Node):
    """Free-form content (pod templates, metadata): not pruned, not checked."""


@dataclass
class Str(Node):
    pattern: str | None = None
    max_len: int | None = None
    min_len: int | None = None
    enum: tuple[str, ...] = ()
    default: Any = MISSING

    def check(self, value: Any, path: str, out: list[Cause]) -> None:
        if not isinstance(value, str):
            out.append(c.type_invalid(path, value, "string"))
        elif self.enum and value not in self.enum:
            out.append(c.not_supported(path, value, self.enum))
        elif self.max_len is not None and len(value) > self.max_len:
            out.append(c.too_long(path, self.max_len))
        elif self.min_len is not None and len(value) < self.min_len:
            detail = f"{path} in body should be at least {self.min_len} chars long"
            out.append(c.invalid(path, value, detail))
        elif self.pattern and not re.match(self.pattern, value):
            out.append(c.invalid(path, value, f"{path} in body should match '{self.pattern}'"))


@dataclass
class Int(Node):
    minimum: int | None = None
    bits: int = 32
    default: Any = MISSING

    def check(self, value: Any, path: str, out: list[Cause]) -> None:
        if isinstance(value, bool) or not isinstance(value, int):
            out.append(c.type_invalid(path, value, "integer"))
            return
        limit = 2 ** (self.bits - 1)
        if not -limit <= value < limit:
            out.append(c.invalid(path, value, f"must fit in int{self.bits}"))
        elif self.minimum is not None and value < self.minimum:
            detail = f"{path} in body should be greater than or equal to {self.minimum}"
            out.append(c.invalid(path, value, detail))


@dataclass
class Bool(Node):
    default: Any = MISSING

    def check(self, value: Any, path: str, out: list[Cause]) -> None:
        if not isinstance(value, bool):
            out.append(c.type_invalid(path, value, "boolean"))


@dataclass
class Quantity(Node):
    """int-or-string matching the quantity pattern (sign checked by webhooks)."""

    default: Any = MISSING

    def check(self, value: Any, path: str, out: list[Cause]) -> None:
        if isinstance(value, bool) or not isinstance(value, int | str):
            out.append(c.type_invalid(path, value, "integer or string"))
        elif isinstance(value, str) and not QUANTITY_PATTERN.match(value):
            detail = f"{path} in body should match '{QUANTITY_PATTERN.pattern}'"
            out.append(c.invalid(path, value, detail))
        else:
            out.extend(_within_bounds(value, path))


def _within_bounds(value: int | str, path: str) -> list[Cause]:
    # The CRD pattern admits "1e9999999"; the model's parser bounds what it will compute with.
    try:
        quantity_value(value)
    except QuantityError as error:
        return [c.invalid(path, value, str(error))]
    return []


@dataclass
class Obj(Node):
    fields: dict[str, Node] = field(default_factory=dict)
    required: tuple[str, ...] = ()
    rules: tuple[Rule, ...] = ()
    default: Any = MISSING

    def normalize(self, value: Any, path: str, unknown: list[str]) -> Any:
        if not isinstance(value, dict):
            return value
        out = {}
        for name, item in value.items():
            node = self.fields.get(name)
            if node is None:
                unknown.append(child(path, name))
            elif item is not None:
                out[name] = node.normalize(item, child(path, name), unknown)
        for name, node in self.fields.items():
            if name not in out and node.default is not MISSING:
                out[name] = node.normalize(copy.deepcopy(node.default), child(path, name), unknown)
        return out

    def check(self, value: Any, path: str, out: list[Cause]) -> None:
        if not isinstance(value, dict):
            out.append(c.type_invalid(path, value, "object"))
            return
        before = len(out)
        for name in self.required:
            if name not in value:
                out.append(c.required(child(path, name)))
        for name, item in value.items():
            if name in self.fields:
                self.fields[name].check(item, child(path, name), out)
        # Like CEL rules, cross-field rules only run on structurally valid input.
        if len(out) == before:
            for rule in self.rules:
                out.extend(rule(value, path))


@dataclass
class Arr(Node):
    item: Node = field(default_factory=Node)
    min_items: int | None = None
    max_items: int | None = None
    key: str | None = None  # list-map key: duplicates are rejected
    default: Any = MISSING

    def normalize(self, value: Any, path: str, unknown: list[str]) -> Any:
        if not isinstance(value, list):
            return value
        return [self.item.normalize(v, f"{path}[{i}]", unknown) for i, v in enumerate(value)]

    def check(self, value: Any, path: str, out: list[Cause]) -> None:
        if not isinstance(value, list):
            out.append(c.type_invalid(path, value, "array"))
            return
        if self.max_items is not None and len(value) > self.max_items:
            out.append(c.too_many(path, len(value), self.max_items))
        if self.min_items is not None and len(value) < self.min_items:
            detail = f"{path} in body should have at least {self.min_items} items"
            out.append(c.invalid(path, len(value), detail))
        for index, item in enumerate(value):
            self.item.check(item, f"{path}[{index}]", out)
        if self.key:
            self._check_keys(value, path, out)

    def _check_keys(self, value: list[Any], path: str, out: list[Cause]) -> None:
        seen: set[Any] = set()
        for index, item in enumerate(value):
            key = item.get(self.key) if isinstance(item, dict) else None
            if key in seen:
                out.append(c.duplicate(f"{path}[{index}]", {self.key: key}))
            seen.add(key)


@dataclass
class Map(Node):
    value: Node = field(default_factory=lambda: Str())
    max_props: int | None = None
    default: Any = MISSING

    def check(self, value: Any, path: str, out: list[Cause]) -> None:
        if not isinstance(value, dict):
            out.append(c.type_invalid(path, value, "object"))
            return
        if self.max_props is not None and len(value) > self.max_props:
            out.append(c.too_many(path, len(value), self.max_props))
        for key, item in value.items():
            self.value.check(item, f"{path}[{key}]", out)
