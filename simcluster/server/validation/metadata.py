"""Validation of ``metadata`` shared by every kind: names, labels, annotations."""

from __future__ import annotations

import re
from typing import Any

from simcluster.server.errors import Cause
from simcluster.server.resources import ResourceType
from simcluster.server.validation import causes as c

SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
DNS1035 = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
_LABEL_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
MAX_ANNOTATIONS_BYTES = 256 * 1024

_SUBDOMAIN_HELP = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character"
)
_LABEL_HELP = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character"
)
_DNS1035_HELP = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', "
    "start with an alphabetic character, and end with an alphanumeric character"
)


def _name_rule(rtype: ResourceType) -> tuple[re.Pattern[str], int, str]:
    if rtype.plural == "namespaces":
        return LABEL, 63, _LABEL_HELP
    if rtype.plural == "services":
        return DNS1035, 63, _DNS1035_HELP
    return SUBDOMAIN, 253, _SUBDOMAIN_HELP


def check_name(rtype: ResourceType, name: str, path: str = "metadata.name") -> list[Cause]:
    """The object-name rule for ``rtype`` (events only need a path-safe name)."""
    if rtype.plural == "events":
        return [] if name and "/" not in name else [c.invalid(path, name, "may not contain '/'")]
    pattern, limit, help_text = _name_rule(rtype)
    if len(name) > limit:
        return [c.invalid(path, name, f"must be no more than {limit} characters")]
    if not pattern.match(name):
        return [
            c.invalid(path, name, f"{help_text} (regex used for validation is '{pattern.pattern}')")
        ]
    return []


def check_qualified_key(key: str, path: str) -> list[Cause]:
    """A label or annotation key: optional DNS-subdomain prefix, then a ≤63 char name."""
    prefix, _, name = key.rpartition("/")
    if prefix and (len(prefix) > 253 or not SUBDOMAIN.match(prefix)):
        return [c.invalid(path, key, "prefix part must be a lowercase RFC 1123 subdomain")]
    if not name or len(name) > 63 or not _LABEL_NAME.match(name):
        return [
            c.invalid(
                path,
                key,
                "name part must consist of alphanumeric characters, '-', '_' or '.', at most 63 characters",
            )
        ]
    return []


def check_labels(labels: Any, path: str = "metadata.labels") -> list[Cause]:
    if not isinstance(labels, dict):
        return [c.type_invalid(path, labels, "object")]
    out: list[Cause] = []
    for key, value in labels.items():
        out += check_qualified_key(key, path)
        if not isinstance(value, str) or len(value) > 63 or not _LABEL_VALUE.match(value):
            out.append(
                c.invalid(
                    f"{path}[{key}]",
                    value,
                    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', at most 63 characters",
                )
            )
    return out


def check_annotations(annotations: Any, path: str = "metadata.annotations") -> list[Cause]:
    if not isinstance(annotations, dict):
        return [c.type_invalid(path, annotations, "object")]
    out: list[Cause] = []
    for key, value in annotations.items():
        out += check_qualified_key(key, path)
        if not isinstance(value, str):
            out.append(c.type_invalid(f"{path}[{key}]", value, "string"))
    size = sum(len(k) + len(str(v)) for k, v in annotations.items())
    if size > MAX_ANNOTATIONS_BYTES:
        out.append(c.too_long(path, MAX_ANNOTATIONS_BYTES))
    return out


def check_metadata(rtype: ResourceType, metadata: dict[str, Any]) -> list[Cause]:
    """Errors in ``metadata`` of a create or update."""
    out = check_name(rtype, metadata.get("name", ""))
    if "labels" in metadata:
        out += check_labels(metadata["labels"])
    if "annotations" in metadata:
        out += check_annotations(metadata["annotations"])
    return out
