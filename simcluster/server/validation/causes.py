"""Builders for field errors worded like the Kubernetes API server's."""

from __future__ import annotations

import json
from typing import Any

from simcluster.server.errors import Cause


def show(value: Any) -> str:
    """Render a value the way field errors quote it (strings JSON-quoted)."""
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, dict | list):
        return '"object"' if isinstance(value, dict) else '"array"'
    return json.dumps(value)


def required(path: str, detail: str = "") -> Cause:
    message = "Required value" + (f": {detail}" if detail else "")
    return Cause(path, "FieldValueRequired", message)


def invalid(path: str, value: Any, detail: str) -> Cause:
    return Cause(path, "FieldValueInvalid", f"Invalid value: {show(value)}: {detail}")


def type_invalid(path: str, value: Any, expected: str) -> Cause:
    detail = f"{path} in body must be of type {expected}: {show(value)}"
    return Cause(path, "FieldValueTypeInvalid", f"Invalid value: {show(value)}: {detail}")


def not_supported(path: str, value: Any, allowed: tuple[str, ...]) -> Cause:
    options = ", ".join(json.dumps(option) for option in allowed)
    return Cause(
        path,
        "FieldValueNotSupported",
        f"Unsupported value: {show(value)}: supported values: {options}",
    )


def too_long(path: str, limit: int) -> Cause:
    return Cause(path, "FieldValueTooLong", f"Too long: may not be more than {limit} bytes")


def too_many(path: str, count: int, limit: int) -> Cause:
    return Cause(path, "FieldValueTooMany", f"Too many: {count}: must have at most {limit} items")


def forbidden(path: str, detail: str) -> Cause:
    return Cause(path, "FieldValueForbidden", f"Forbidden: {detail}")


def duplicate(path: str, value: Any) -> Cause:
    return Cause(path, "FieldValueDuplicate", f"Duplicate value: {show(value)}")
