"""Typed readers for environment variables.

Every setting comes through these helpers so that a bad value fails at start-up
with the variable's name, and so ``docs/configuration.md`` can be checked against
the set of variables the code actually reads (see ``REGISTRY``).
"""

from __future__ import annotations

import ipaddress
import json
import os
import re
import string
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")

_UNSET = object()


class ConfigError(RuntimeError):
    """A required variable is missing or cannot be parsed."""


@dataclass(frozen=True)
class Variable:
    name: str
    kind: str


REGISTRY: dict[str, Variable] = {}


def _read(name: str, kind: str, parse: Callable[[str], T], default: object) -> T:
    REGISTRY[name] = Variable(name, kind)
    raw = os.environ.get(name)
    if raw is None or raw == "":
        if default is _UNSET:
            raise ConfigError(f"{name} must be set")
        return default  # type: ignore[return-value]
    try:
        return parse(raw)
    except ValueError as exc:
        raise ConfigError(f"{name}={raw!r} is not a valid {kind}: {exc}") from None


def env_str(name: str, default: str | None | object = _UNSET) -> str:
    return _read(name, "string", str, default)


def env_int(name: str, default: int | object = _UNSET) -> int:
    return _read(name, "integer", int, default)


def env_float(name: str, default: float | object = _UNSET) -> float:
    return _read(name, "number", float, default)


def _parse_bool(raw: str) -> bool:
    lowered = raw.strip().lower()
    if lowered in {"1", "true", "yes", "on"}:
        return True
    if lowered in {"0", "false", "no", "off"}:
        return False
    raise ValueError("expected one of true/false/1/0/yes/no/on/off")


def env_bool(name: str, default: bool | object = _UNSET) -> bool:
    return _read(name, "boolean", _parse_bool, default)


def _parse_list(raw: str) -> list[str]:
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_list(name: str, default: list[str] | object = _UNSET) -> list[str]:
    return _read(name, "comma-separated list", _parse_list, default)


def _matching(pattern: re.Pattern, expected: str) -> Callable[[str], str]:
    """A parser keeping a value (stripped) that is all ``pattern``, else naming ``expected``."""

    def parse(raw: str) -> str:
        value = raw.strip()
        if not pattern.fullmatch(value):
            raise ValueError(f"expected {expected}")
        return value

    return parse


# A Kubernetes namespace name: an RFC 1123 label.
_NAMESPACE = re.compile(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")
_parse_namespace = _matching(
    _NAMESPACE, "a namespace name: lowercase letters, digits and '-', e.g. 'gpu-portal'"
)


def env_namespace(name: str, default: str | object = _UNSET) -> str:
    return _read(name, "namespace name", _parse_namespace, default)


# A Kubernetes object name such as a storage class's: an RFC 1123 subdomain (≤ 253).
_SUBDOMAIN = re.compile(
    r"(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
)


def env_object_name(name: str, default: str | object = _UNSET) -> str:
    expected = "a Kubernetes object name: lowercase letters, digits, '-' and '.', e.g. 'cephfs-rwx'"
    return _read(name, "Kubernetes object name", _matching(_SUBDOMAIN, expected), default)


# A storage size as Kubernetes writes it: whole units, binary or decimal suffix.
_STORAGE_SIZE = re.compile(r"[1-9][0-9]*(Ki|Mi|Gi|Ti|Pi|k|M|G|T|P)?")


def env_storage_size(name: str, default: str | object = _UNSET) -> str:
    expected = "a whole number with an optional unit, e.g. '500Gi'"
    return _read(name, "storage size", _matching(_STORAGE_SIZE, expected), default)


def _parse_namespace_patterns(raw: str) -> list[str]:
    # A pattern is a namespace name in which '*' may stand for any run of characters.
    patterns = _parse_list(raw)
    for pattern in patterns:
        if pattern == "*" or not _NAMESPACE.fullmatch(pattern.replace("*", "x")):
            raise ValueError(
                f"{pattern!r} is not a namespace name or a pattern of one ('*' standing for "
                "any characters, not for everything), e.g. 'kube-*'"
            )
    return patterns


def env_namespace_patterns(name: str, default: list[str] | object = _UNSET) -> list[str]:
    return _read(
        name, "comma-separated list of namespace patterns", _parse_namespace_patterns, default
    )


def _parse_networks(raw: str) -> list[str]:
    # Strict, as gunicorn's forwarded_allow_ips is: 10.0.0.1/8 is a typo, not 10.0.0.0/8.
    return [str(ipaddress.ip_network(item)) for item in _parse_list(raw)]


def env_networks(name: str, default: list[str] | object = _UNSET) -> list[str]:
    """IP addresses or CIDR networks, normalised (``10.0.0.1`` becomes ``10.0.0.1/32``)."""
    return _read(name, "comma-separated list of IP networks", _parse_networks, default)


def env_choice(name: str, choices: tuple[str, ...], default: str | object = _UNSET) -> str:
    def parse(raw: str) -> str:
        if raw not in choices:
            raise ValueError(f"expected one of {', '.join(choices)}")
        return raw

    return _read(name, "choice", parse, default)


def _template_parser(placeholders: tuple[str, ...]) -> Callable[[str], str]:
    """A ``str.format`` template using only ``placeholders`` (no indexing, no format
    spec), rendering to an absolute http(s) URL or a path on this site."""

    def parse(raw: str) -> str:
        try:
            parts = [(f, spec, conv) for _, f, spec, conv in string.Formatter().parse(raw)]
        except ValueError as exc:  # an unmatched brace
            raise ValueError(str(exc)) from None
        fields = [(f, spec, conv) for f, spec, conv in parts if f is not None]
        unknown = [f for f, _, _ in fields if f not in placeholders]
        if unknown:
            allowed = ", ".join(f"{{{p}}}" for p in placeholders)
            raise ValueError(f"unknown placeholder {{{unknown[0]}}}; the known ones are {allowed}")
        if any(spec or conv for _, spec, conv in fields):
            raise ValueError("placeholders take no format spec or conversion")
        sample = raw.format(**{p: "x" for p in placeholders})
        if not sample.startswith(("http://", "https://", "/")):
            raise ValueError("must start with http://, https:// or /")
        return raw

    return parse


def env_template(name: str, placeholders: tuple[str, ...], default: str | object = _UNSET) -> str:
    """A URL template such as ``https://hub.example.org/user/{user}/{name}/``."""
    kind = f"URL template (placeholders {', '.join('{' + p + '}' for p in placeholders)})"
    return _read(name, kind, _template_parser(placeholders), default)


def env_json(
    name: str, kind: str, check: Callable[[object], T], default: T | None | object = _UNSET
) -> T:
    """A JSON value that ``check`` returns if valid (else raises ValueError with the rule)."""

    def parse(raw: str) -> T:
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise ValueError(f"not JSON ({exc.msg} at character {exc.pos})") from None
        return check(value)

    return _read(name, kind, parse, default)
