"""HTTP endpoints under ``/simcluster/`` (not part of the Kubernetes API; no token needed).

GET    /simcluster/healthz            {"status": "ok", "resourceVersion": N}
GET    /simcluster/counters           request counts (see hooks.Counters.snapshot)
POST   /simcluster/counters/reset     zero the counters
GET    /simcluster/faults             active fault rules
POST   /simcluster/faults             add a rule (body: hooks.Fault fields)
DELETE /simcluster/faults             remove all rules
DELETE /simcluster/faults/{id}        remove one rule
POST   /simcluster/snapshot           write the snapshot file now (409 if none configured)
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from simcluster.server import errors
from simcluster.server.dispatch import Request, Response
from simcluster.server.hooks import Counters, Faults
from simcluster.server.operations import Cluster


def _faults(request: Request, faults: Faults, rest: tuple[str, ...]) -> Response:
    if request.method == "GET" and not rest:
        return Response(200, {"faults": faults.listing()})
    if request.method == "POST" and not rest:
        try:
            spec = json.loads(request.body or b"{}")
            fault = faults.add(spec)
        except (ValueError, TypeError) as exc:
            raise errors.bad_request(str(exc)) from exc
        return Response(201, asdict(fault))
    if request.method == "DELETE" and not rest:
        faults.clear()
        return Response(200, {"faults": []})
    if request.method == "DELETE" and len(rest) == 1 and rest[0].isdigit():
        if not faults.remove(int(rest[0])):
            raise errors.ApiError(404, "NotFound", f"fault {rest[0]} not found")
        return Response(200, {"faults": faults.listing()})
    raise errors.method_not_allowed()


def dispatch_hooks(
    request: Request,
    parts: tuple[str, ...],
    cluster: Cluster,
    counters: Counters,
    faults: Faults,
    save_snapshot: Callable[[], bool],
) -> Response:
    """Answer one ``/simcluster/...`` request."""
    head, rest = (parts[0], parts[1:]) if parts else ("", ())
    method = request.method
    if head == "healthz" and method == "GET":
        return Response(200, {"status": "ok", "resourceVersion": cluster.store.resource_version})
    if head == "counters" and method == "GET" and not rest:
        return Response(200, counters.snapshot())
    if head == "counters" and method == "POST" and rest == ("reset",):
        counters.reset()
        return Response(200, counters.snapshot())
    if head == "faults":
        return _faults(request, faults, rest)
    if head == "snapshot" and method == "POST":
        if not save_snapshot():
            raise errors.ApiError(
                409, "Conflict", "no snapshot file configured (start with --snapshot FILE)"
            )
        return Response(200, {"saved": True})
    raise errors.path_not_found()


def describe() -> dict[str, Any]:
    """The endpoint list (served at GET /simcluster/)."""
    return {
        "endpoints": [
            line.strip()
            for line in (__doc__ or "").splitlines()
            if line.strip().startswith(("GET", "POST", "DELETE"))
        ]
    }
