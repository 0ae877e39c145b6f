"""Discovery documents: /version, /api, /api/v1, /apis, /apis/{group}[/{version}].

Legacy (non-aggregated) discovery only: clients that ask for the aggregated
format get plain ``APIGroupList`` JSON and fall back, as they do with older
servers.
"""

from __future__ import annotations

from typing import Any

from simcluster.server.resources import (
    ALL_VERBS,
    SUBRESOURCE_VERBS,
    VISIBILITY_GROUP,
    ResourceType,
    group_versions,
    types_in,
)

Obj = dict[str, Any]
KUBERNETES_VERSION = {"major": "1", "minor": "32", "gitVersion": "v1.32.0-simcluster"}


def version() -> Obj:
    return {
        **KUBERNETES_VERSION,
        "gitCommit": "0000000000000000000000000000000000000000",
        "gitTreeState": "clean",
        "buildDate": "2025-01-01T00:00:00Z",
        "goVersion": "go1.23.0",
        "compiler": "gc",
        "platform": "linux/amd64",
    }


def core_versions() -> Obj:
    return {
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1"}],
    }


def _group_doc(group: str, versions: tuple[str, ...]) -> Obj:
    entries = [{"groupVersion": f"{group}/{v}", "version": v} for v in versions]
    return {"name": group, "versions": entries, "preferredVersion": entries[0]}


def group_list() -> Obj:
    groups = [_group_doc(group, versions) for group, versions in sorted(group_versions().items())]
    return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}


def group(name: str) -> Obj | None:
    versions = group_versions().get(name)
    if versions is None:
        return None
    return {"kind": "APIGroup", "apiVersion": "v1", **_group_doc(name, versions)}


def _resource_entries(rtype: ResourceType) -> list[Obj]:
    main: Obj = {
        "name": rtype.plural,
        "singularName": rtype.singular,
        "namespaced": rtype.namespaced,
        "kind": rtype.kind,
        "verbs": list(ALL_VERBS),
    }
    if rtype.short_names:
        main["shortNames"] = list(rtype.short_names)
    if rtype.is_kueue:
        main["categories"] = ["kueue"]
    subs = [
        {
            "name": f"{rtype.plural}/{sub}",
            "singularName": "",
            "namespaced": rtype.namespaced,
            "kind": rtype.kind,
            "verbs": list(SUBRESOURCE_VERBS),
        }
        for sub in rtype.subresources
    ]
    return [main, *subs]


def _visibility_resources() -> list[Obj]:
    return [
        {
            "name": "clusterqueues",
            "singularName": "clusterqueue",
            "namespaced": False,
            "kind": "ClusterQueue",
            "verbs": ["get"],
        },
        {
            "name": "clusterqueues/pendingworkloads",
            "singularName": "",
            "namespaced": False,
            "kind": "PendingWorkloadsSummary",
            "verbs": ["get"],
        },
        {
            "name": "localqueues",
            "singularName": "localqueue",
            "namespaced": True,
            "kind": "LocalQueue",
            "verbs": ["get"],
        },
        {
            "name": "localqueues/pendingworkloads",
            "singularName": "",
            "namespaced": True,
            "kind": "PendingWorkloadsSummary",
            "verbs": ["get"],
        },
    ]


def resource_list(group_name: str, version_name: str) -> Obj | None:
    """``APIResourceList`` for a group/version, or None when not served."""
    if group_name == VISIBILITY_GROUP and version_name == "v1beta2":
        resources = _visibility_resources()
    else:
        types = types_in(group_name, version_name)
        if not types:
            return None
        resources = [entry for rtype in types for entry in _resource_entries(rtype)]
    group_version = f"{group_name}/{version_name}" if group_name else version_name
    return {
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": group_version,
        "resources": resources,
    }
