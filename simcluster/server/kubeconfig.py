"""The kubeconfig the server writes for kubectl and the Python client."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml

CONTEXT = "simcluster"
USER = "simcluster-admin"


def render(url: str, token: str, namespace: str = "default") -> dict[str, Any]:
    """A minimal kubeconfig: one cluster, one token user, one current context."""
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "preferences": {},
        "clusters": [{"name": CONTEXT, "cluster": {"server": url}}],
        "users": [{"name": USER, "user": {"token": token}}],
        "contexts": [
            {"name": CONTEXT, "context": {"cluster": CONTEXT, "user": USER, "namespace": namespace}}
        ],
        "current-context": CONTEXT,
    }


def write(path: str | os.PathLike[str], url: str, token: str) -> Path:
    """Write the kubeconfig atomically with owner-only permissions (it holds a token)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        yaml.safe_dump(render(url, token), handle, sort_keys=False)
    tmp.replace(target)
    return target
