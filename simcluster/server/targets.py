"""Value types shared by the API verbs: what is addressed, with which options, and the answer."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from simcluster.server.resources import ResourceType

Obj = dict[str, Any]


@dataclass(frozen=True)
class Target:
    """What a request addresses: type, version, namespace, name, subresource."""

    rtype: ResourceType
    version: str
    namespace: str = ""
    name: str = ""
    subresource: str = ""

    @property
    def key(self) -> tuple[str, str]:
        return (self.namespace if self.rtype.namespaced else "", self.name)


@dataclass(frozen=True)
class WriteOptions:
    """Query options shared by the write verbs."""

    dry_run: bool = False
    field_manager: str = ""
    force: bool = False
    field_validation: str = "Warn"  # Ignore | Warn | Strict
    propagation: str = ""
    preconditions: dict[str, str] = field(default_factory=dict)


@dataclass
class Result:
    """A write's answer: the object (as the request's version), HTTP code, warnings."""

    obj: Obj
    code: int = 200
    warnings: list[str] = field(default_factory=list)
