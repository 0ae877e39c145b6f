"""The catalogue of resource types the simulated cluster serves.

Every other module looks types up here, so adding a kind means adding one
``ResourceType`` row. Objects are stored in the first (storage) version and
converted on the way in and out (see ``conversion.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

KUEUE_GROUP = "kueue.x-k8s.io"
VISIBILITY_GROUP = "visibility.kueue.x-k8s.io"

ALL_VERBS = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")
SUBRESOURCE_VERBS = ("get", "patch", "update")


@dataclass(frozen=True)
class ResourceType:
    """One served resource: names, scope and the versions it is served in."""

    group: str
    versions: tuple[str, ...]
    kind: str
    plural: str
    singular: str
    namespaced: bool
    short_names: tuple[str, ...] = ()
    subresources: tuple[str, ...] = ()
    # Versions the API server flags as deprecated (a Warning header is sent).
    deprecated_versions: tuple[str, ...] = ()

    @property
    def storage_version(self) -> str:
        """The version objects are kept in; also the preferred one."""
        return self.versions[0]

    @property
    def key(self) -> tuple[str, str]:
        """Version-independent identity used as the storage bucket."""
        return (self.group, self.plural)

    @property
    def is_kueue(self) -> bool:
        return self.group == KUEUE_GROUP

    def api_version(self, version: str | None = None) -> str:
        """``apiVersion`` string for ``version`` (default: storage version)."""
        version = version or self.storage_version
        return f"{self.group}/{version}" if self.group else version

    def qualified_kind(self) -> str:
        """``Kind.group`` as used in error messages (``Kind`` for core)."""
        return f"{self.kind}.{self.group}" if self.group else self.kind

    def qualified_plural(self) -> str:
        """``plural.group`` as used in NotFound messages (``plural`` for core)."""
        return f"{self.plural}.{self.group}" if self.group else self.plural


def _core(kind: str, plural: str, namespaced: bool, short: tuple[str, ...] = (), sub=()):
    return ResourceType("", ("v1",), kind, plural, kind.lower(), namespaced, short, sub)


def _kueue(kind: str, plural: str, namespaced: bool, short: tuple[str, ...], sub=()):
    return ResourceType(
        KUEUE_GROUP,
        ("v1beta2", "v1beta1"),
        kind,
        plural,
        kind.lower(),
        namespaced,
        short,
        sub,
        deprecated_versions=("v1beta1",),
    )


RESOURCE_TYPES: tuple[ResourceType, ...] = (
    _core("Namespace", "namespaces", False, ("ns",), ("status",)),
    _core("Node", "nodes", False, ("no",), ("status",)),
    _core("Pod", "pods", True, ("po",), ("status",)),
    _core("Service", "services", True, ("svc",), ("status",)),
    _core("Event", "events", True, ("ev",)),
    _core("ConfigMap", "configmaps", True, ("cm",)),
    _core("PersistentVolumeClaim", "persistentvolumeclaims", True, ("pvc",), ("status",)),
    ResourceType("batch", ("v1",), "Job", "jobs", "job", True, (), ("status",)),
    ResourceType(
        "apps", ("v1",), "StatefulSet", "statefulsets", "statefulset", True, ("sts",), ("status",)
    ),
    _kueue("Topology", "topologies", False, ()),
    _kueue("ResourceFlavor", "resourceflavors", False, ("flavor", "flavors", "rf")),
    _kueue("Cohort", "cohorts", False, ("co",), ("status",)),
    _kueue("ClusterQueue", "clusterqueues", False, ("cq",), ("status",)),
    _kueue("LocalQueue", "localqueues", True, ("queue", "queues", "lq"), ("status",)),
    _kueue("WorkloadPriorityClass", "workloadpriorityclasses", False, ("wpc",)),
    _kueue("Workload", "workloads", True, ("kwl", "kueueworkload", "kueueworkloads"), ("status",)),
)

_BY_KEY = {rt.key: rt for rt in RESOURCE_TYPES}


def find(group: str, version: str, plural: str) -> ResourceType | None:
    """The type served at ``/…/{group}/{version}/{plural}``, if any."""
    rtype = _BY_KEY.get((group, plural))
    if rtype is None or version not in rtype.versions:
        return None
    return rtype


def by_key(group: str, plural: str) -> ResourceType:
    """The type for a storage key; raises KeyError for unknown keys."""
    return _BY_KEY[(group, plural)]


def by_kind(group: str, kind: str) -> ResourceType | None:
    """The type with ``kind`` in ``group`` (used by snapshots and the engine)."""
    for rtype in RESOURCE_TYPES:
        if rtype.group == group and rtype.kind == kind:
            return rtype
    return None


def group_versions() -> dict[str, tuple[str, ...]]:
    """Served versions per non-core group, preferred version first."""
    groups: dict[str, tuple[str, ...]] = {}
    for rtype in RESOURCE_TYPES:
        if rtype.group:
            groups.setdefault(rtype.group, rtype.versions)
    groups[VISIBILITY_GROUP] = ("v1beta2",)
    return groups


def types_in(group: str, version: str) -> list[ResourceType]:
    """All types served in ``group/version``."""
    return [rt for rt in RESOURCE_TYPES if rt.group == group and version in rt.versions]


NAMESPACES = by_key("", "namespaces")
PODS = by_key("", "pods")
