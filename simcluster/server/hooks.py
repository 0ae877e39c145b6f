"""Test and ops hooks: request counters and fault injection.

Both are consulted by the HTTP handler for every Kubernetes API request.
Counters are keyed by ``(verb, group, resource, subresource)``; faults match
on verb and resource (and optionally namespace/name) and either fail the
request with a chosen status code or delay it.
"""

from __future__ import annotations

import itertools
import threading
from collections import Counter
from dataclasses import asdict, dataclass
from typing import Any

WRITE_VERBS = frozenset({"create", "update", "patch", "delete", "deletecollection"})
_REASONS = {
    400: "BadRequest",
    401: "Unauthorized",
    403: "Forbidden",
    404: "NotFound",
    409: "Conflict",
    410: "Expired",
    422: "Invalid",
    429: "TooManyRequests",
    500: "InternalError",
    503: "ServiceUnavailable",
    504: "Timeout",
}


@dataclass(frozen=True)
class RequestInfo:
    """What a request does, in Kubernetes RBAC terms."""

    verb: str
    group: str
    resource: str
    subresource: str = ""
    namespace: str = ""
    name: str = ""


API_CLIENTS = "api"
CONTROLLER = "controller"


class Counters:
    """Thread-safe request counts, kept apart per client.

    Requests over HTTP (the portal, kubectl, tests) count as ``api``; writes the
    in-process Kueue controller makes count as ``controller``. The top-level
    figures are the API clients' ones, so "the portal made zero writes" stays
    checkable while the controller keeps workloads moving.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: Counter[tuple[str, str, str, str, str]] = Counter()

    def record(self, info: RequestInfo, client: str = API_CLIENTS) -> None:
        with self._lock:
            self._counts[(client, info.verb, info.group, info.resource, info.subresource)] += 1

    def reset(self) -> None:
        with self._lock:
            self._counts.clear()

    def snapshot(self) -> dict[str, Any]:
        """API clients' totals, per verb and per row; the controller's under ``controller``."""
        with self._lock:
            counts = dict(self._counts)
        return {**_summary(counts, API_CLIENTS), CONTROLLER: _summary(counts, CONTROLLER)}


def _summary(counts: dict[tuple[str, str, str, str, str], int], client: str) -> dict[str, Any]:
    rows = [
        {"verb": v, "group": g, "resource": r, "subresource": s, "count": n}
        for (c, v, g, r, s), n in sorted(counts.items())
        if c == client
    ]
    by_verb: Counter[str] = Counter()
    for row in rows:
        by_verb[row["verb"]] += row["count"]
    writes = sum(n for verb, n in by_verb.items() if verb in WRITE_VERBS)
    return {
        "total": sum(by_verb.values()),
        "writes": writes,
        "byVerb": dict(by_verb),
        "requests": rows,
    }


@dataclass
class Fault:
    """Fail (``code``) or slow down (``latencySeconds``) the next ``count`` matching requests.

    Empty match fields match anything; ``count`` 0 means "until removed".
    """

    verb: str = ""
    group: str | None = None
    resource: str = ""
    subresource: str | None = None
    namespace: str = ""
    name: str = ""
    code: int = 0
    message: str = ""
    reason: str = ""
    latencySeconds: float = 0.0
    count: int = 1
    id: int = 0
    hits: int = 0

    def matches(self, info: RequestInfo) -> bool:
        checks = (
            (self.verb, info.verb),
            (self.resource, info.resource),
            (self.namespace, info.namespace),
            (self.name, info.name),
        )
        if any(wanted and wanted != actual for wanted, actual in checks):
            return False
        if self.group is not None and self.group != info.group:
            return False
        return self.subresource is None or self.subresource == info.subresource

    def status(self) -> dict[str, Any]:
        """The ``Status`` body sent for an injected failure."""
        return {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message or f"injected fault {self.id}",
            "reason": self.reason or _REASONS.get(self.code, "InternalError"),
            "code": self.code,
        }


class Faults:
    """The active fault rules, consumed in creation order."""

    _FIELDS = frozenset(Fault.__dataclass_fields__) - {"id", "hits"}

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._rules: list[Fault] = []
        self._ids = itertools.count(1)

    def add(self, spec: dict[str, Any]) -> Fault:
        """Register a rule from a JSON body; ValueError on unknown keys or no effect."""
        unknown = set(spec) - self._FIELDS
        if unknown:
            raise ValueError(f"unknown fault fields: {sorted(unknown)}")
        fault = Fault(**spec)
        if not fault.code and not fault.latencySeconds:
            raise ValueError("a fault needs a code or latencySeconds")
        with self._lock:
            fault.id = next(self._ids)
            self._rules.append(fault)
        return fault

    def take(self, info: RequestInfo) -> Fault | None:
        """The first rule matching ``info``, counting the hit (and expiring spent rules)."""
        with self._lock:
            for fault in self._rules:
                if fault.matches(info):
                    fault.hits += 1
                    if fault.count and fault.hits >= fault.count:
                        self._rules.remove(fault)
                    return fault
        return None

    def clear(self) -> None:
        with self._lock:
            self._rules.clear()

    def remove(self, fault_id: int) -> bool:
        with self._lock:
            before = len(self._rules)
            self._rules = [f for f in self._rules if f.id != fault_id]
            return len(self._rules) != before

    def listing(self) -> list[dict[str, Any]]:
        with self._lock:
            return [asdict(fault) for fault in self._rules]
