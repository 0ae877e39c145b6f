"""Create objects as a *user* would (not as the controller), through the API verbs.

Used by the demo generator: its writes must reach the controller's change
stream like anybody else's, so they use their own ``Writer`` whose echoes are
not skipped. Nodes get their status in a second write, as a kubelet would.
"""

from __future__ import annotations

import copy
from typing import Any

from simcluster.server import resources

from .writer import NODES, Writer

Obj = dict[str, Any]


class Submitter:
    def __init__(self, controller: Any) -> None:
        server = controller.server
        self.store = server.cluster.store
        self.writer = Writer(server.cluster, server.counters, "simcluster-demo")

    def existing_nodes(self) -> list[Obj]:
        return [{**n, "kind": "Node"} for n in self.store.list(NODES.key)]

    def ensure(self, obj: Obj) -> None:
        """Create ``obj`` unless an object of that kind and name exists."""
        rtype = _rtype(obj)
        meta = obj["metadata"]
        key = (meta.get("namespace", "") if rtype.namespaced else "", meta["name"])
        if self.store.get(rtype.key, key) is not None:
            return
        self.writer.create(rtype, copy.deepcopy(obj))
        if rtype is NODES and obj.get("status"):
            self.writer.merge(NODES, "", meta["name"], {"status": obj["status"]}, "status")


def _rtype(obj: Obj) -> resources.ResourceType:
    group = obj["apiVersion"].rpartition("/")[0]
    rtype = resources.by_kind(group, obj["kind"])
    if rtype is None:
        raise ValueError(f"simcluster does not serve {obj['apiVersion']} {obj['kind']}")
    return rtype
