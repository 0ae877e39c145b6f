"""A small JSON client for the simulated cluster's ``/simcluster/`` endpoints."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any


class Hooks:
    """Tiny JSON client for ``/simcluster/...``."""

    def __init__(self, base: str) -> None:
        self.base = base

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(f"{self.base}/simcluster/{path}", data=data, method=method)
        request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())
