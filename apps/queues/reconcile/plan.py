"""The pure diff: desired manifests + what the cluster holds → a list of actions.

Rules (each one a test in ``tests/test_reconcile_plan.py``):

* Only owned fields (``kueue.OWNED_FIELDS`` and our label keys) are compared, so
  server defaults, status and other controllers' fields never cause a write.
* Missing objects are created; differing ones get a conditional merge patch of
  exactly the differing owned fields.
* An object of ours that is no longer desired is deleted — unless it is a
  ClusterQueue or LocalQueue still running workloads: then it is held
  (``stopPolicy: Hold``) and deleted by a later run once it is empty.
* Namespaces and checkpoint volumes (PersistentVolumeClaims) are never deleted:
  when no longer desired they only lose our labels, so no data goes with them.
* Objects without our label are never touched; if one has the name we want,
  the action is ``blocked`` and reported.
* Nothing is written in a protected namespace (``kube-*``, ``default``, the portal's
  own: ``core.namespaces``), whatever the database asks for: ``blocked``.
* A namespace that exists without our label is not ours: neither it nor anything in
  it is written (``blocked``, "exists, not ours; adopt?") until an admin adopts it.
* Kueue refuses to change a Topology, or a ResourceFlavor's topologyName, nodeLabels
  and tolerations once its topologyName is set: such a difference is ``blocked`` with
  the reason, never sent as a patch the API server would refuse on every run.
* A difference from what we applied last time is *drift*: someone changed the
  cluster behind our back. It is repaired like any other difference and reported.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from apps.queues import kueue
from core.namespaces import matches

Key = tuple[str, str, str]
Path = tuple[str, ...]

CREATE, UPDATE, DELETE, HOLD, BLOCKED, UNCHANGED = (
    "create",
    "update",
    "delete",
    "hold",
    "blocked",
    "unchanged",
)
HOLDABLE = (kueue.CLUSTER_QUEUE, kueue.LOCAL_QUEUE)
# Deleting a namespace deletes everything in it, deleting a claim its checkpoints:
# far too dangerous to automate, so these are released instead (our labels removed).
RELEASED = {
    kueue.NAMESPACE: "no longer a team namespace: our labels removed, namespace kept",
    kueue.PERSISTENT_VOLUME_CLAIM: (
        "no longer a checkpoint volume of ours: our labels removed, claim and data kept "
        "(delete it by hand once nobody needs its checkpoints)"
    ),
}


# Fields Kueue never lets change, per kind, and the field whose being set freezes them
# (None: frozen from creation). Only our label could differ on a Topology otherwise.
IMMUTABLE: dict[str, tuple[str | None, tuple[str, ...]]] = {
    kueue.TOPOLOGY: (None, ("spec.levels", "metadata.labels")),
    kueue.RESOURCE_FLAVOR: (
        "spec.topologyName",
        ("spec.topologyName", "spec.nodeLabels", "spec.tolerations"),
    ),
}


@dataclass(frozen=True)
class NamespaceRules:
    """Where the plan may write: never in ``protected`` (shell-style patterns); in a
    namespace that exists without our label only once an admin ``adopted`` it."""

    protected: tuple[str, ...] = ()
    adopted: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Change:
    """One owned field that differs: what the cluster has and what we want."""

    path: Path
    cluster: Any
    desired: Any

    @property
    def field(self) -> str:
        return render_path(self.path)

    def as_dict(self) -> dict:
        return {"field": self.field, "cluster": self.cluster, "desired": self.desired}


@dataclass(frozen=True)
class Action:
    verb: str
    key: Key
    desired: dict | None = None
    observed: dict | None = None
    changes: tuple[Change, ...] = ()
    drift: tuple[Change, ...] = ()
    patch: dict | None = None
    message: str = ""

    @property
    def kind(self) -> str:
        return self.key[0]

    @property
    def namespace(self) -> str:
        return self.key[1]

    @property
    def name(self) -> str:
        return self.key[2]

    @property
    def writes(self) -> bool:
        return self.verb in (CREATE, DELETE) or self.patch is not None


def render_path(path: Path) -> str:
    if path[:2] == ("metadata", "labels"):
        return f'metadata.labels["{path[2]}"]'
    return ".".join(path)


def _get(obj: dict, path: Path) -> Any:
    node: Any = obj
    for part in path:
        if not isinstance(node, dict):
            return None
        node = node.get(part)
    return node


def _empty(value: Any) -> bool:
    return value is None or value == {} or value == [] or value == ""


def project(obj: dict | None, version: str) -> dict[Path, Any]:
    """The owned fields of ``obj`` as ``path → value``; unset fields are left out."""
    if obj is None:
        return {}
    paths = [tuple(p.split(".")) for p in kueue.owned_fields(obj["kind"], version)]
    paths += [("metadata", "labels", label) for label in kueue.OWNED_LABELS]
    values = {path: _get(obj, path) for path in paths}
    return {path: value for path, value in values.items() if not _empty(value)}


def diff(desired: dict[Path, Any], observed: dict[Path, Any]) -> tuple[Change, ...]:
    paths = sorted(set(desired) | set(observed))
    return tuple(
        Change(path, observed.get(path), desired.get(path))
        for path in paths
        if desired.get(path) != observed.get(path)
    )


def merge_patch(changes: tuple[Change, ...], resource_version: str | None) -> dict:
    """A JSON merge patch setting each change (None removes the field).

    The resourceVersion makes the patch conditional: if anything wrote the object
    since we read it, the server answers 409 and the next run re-reads it.
    """
    patch: dict[str, Any] = {"metadata": {}}
    if resource_version:
        patch["metadata"]["resourceVersion"] = resource_version
    for change in changes:
        node = patch
        for part in change.path[:-1]:
            node = node.setdefault(part, {})
        node[change.path[-1]] = change.desired
    return patch


def plan(
    desired: list[dict],
    observed: dict[Key, dict],
    *,
    version: str,
    applied: dict[Key, dict] | None = None,
    busy: dict[Key, int] | None = None,
    namespaces: NamespaceRules | None = None,
    read_only: dict[Key, dict] | None = None,
) -> list[Action]:
    """Every action, creates/updates in dependency order, then deletes in reverse.

    ``applied`` holds the owned fields as we last wrote them (for drift);
    ``busy`` the number of running workloads per ClusterQueue/LocalQueue;
    ``namespaces`` the namespaces the plan must leave alone. ``observed`` (or
    ``read_only``, objects read for this decision alone and never pruned) must hold
    the Namespace of every namespaced object desired, if it exists.
    """
    applied, busy, rules = applied or {}, busy or {}, namespaces or NamespaceRules()
    wanted = {kueue.object_key(obj): obj for obj in desired}
    seen = {**(read_only or {}), **observed}
    actions = [
        _refused(key, obj, seen, rules)
        or _for_desired(key, obj, observed.get(key), applied, version)
        for key, obj in wanted.items()
    ]
    leftovers = [
        obj for key, obj in observed.items() if key not in wanted and kueue.is_managed(obj)
    ]
    named = _named_topologies(observed, leaving={kueue.object_key(obj) for obj in leftovers})
    actions += [
        _refused(kueue.object_key(obj), None, seen, rules)
        or _topology_in_use(obj, named)
        or _for_leftover(obj, busy, version)
        for obj in leftovers
    ]
    return sorted(actions, key=_order)


def namespace_of(key: Key) -> str:
    """The namespace an object is or lives in ('' for other cluster-scoped kinds)."""
    return key[2] if key[0] == kueue.NAMESPACE else key[1]


def _refused(
    key: Key, desired: dict | None, observed: dict[Key, dict], rules: NamespaceRules
) -> Action | None:
    """A blocked action when ``key`` is in a namespace the portal must not write."""
    namespace = namespace_of(key)
    if not namespace:
        return None
    if matches(namespace, rules.protected):
        advice = "give the team another namespace" if desired else "remove it by hand"
        message = (
            f"{namespace} is a protected system namespace (QM_PROTECTED_NAMESPACES); "
            f"the portal never writes there: {advice}"
        )
    else:
        live = observed.get((kueue.NAMESPACE, "", namespace))
        if live is None or kueue.is_managed(live) or namespace in rules.adopted:
            return None
        message = (
            f"namespace {namespace} exists, not ours; adopt? The portal neither labels it "
            "nor writes in it until an admin adopts it (Cluster sync page, or "
            f"`manage.py adopt_namespace {namespace} --reason …`)"
        )
    return Action(BLOCKED, key, desired=desired, observed=observed.get(key), message=message)


def phase(action: Action) -> tuple[int, int]:
    """Creates and updates by kind in dependency order, then deletes in reverse."""
    rank = kueue.KINDS.index(action.kind)
    return (1, -rank) if action.verb == DELETE else (0, rank)


def _order(action: Action) -> tuple:
    return (*phase(action), action.namespace, action.name)


def _for_desired(
    key: Key, obj: dict, live: dict | None, applied: dict[Key, dict], version: str
) -> Action:
    if live is None:
        return Action(CREATE, key, desired=obj, changes=diff(project(obj, version), {}))
    if not kueue.is_managed(live) and key[0] != kueue.NAMESPACE:
        message = (
            f"{key[0]} {key[2]} exists without the label {kueue.MANAGED_BY}={kueue.MANAGER}; "
            "the portal leaves it alone (adopt it with `manage.py import_kueue --take-ownership`)"
        )
        return Action(BLOCKED, key, desired=obj, observed=live, message=message)
    observed = project(live, version)
    changes = diff(project(obj, version), observed)
    if not changes:
        return Action(UNCHANGED, key, desired=obj, observed=live)
    if message := _immutable(key, live, changes):
        return Action(BLOCKED, key, obj, live, changes, message=message)
    drift = _drift(changes, applied.get(key), observed)
    patch = merge_patch(changes, live["metadata"].get("resourceVersion"))
    return Action(UPDATE, key, obj, live, changes, drift, patch)


def _immutable(key: Key, live: dict, changes: tuple[Change, ...]) -> str | None:
    """Why the changes cannot be made, if they touch a field Kueue keeps fixed."""
    if key[0] not in IMMUTABLE:
        return None
    trigger, frozen = IMMUTABLE[key[0]]
    if trigger and _get(live, tuple(trigger.split("."))) is None:
        return None
    touched = sorted({c.field for c in changes if c.field.startswith(frozen)})
    if not touched:
        return None
    return (
        f"Kueue never changes {', '.join(touched)} of {key[0]} {key[2]} once "
        f"{trigger or 'created'}; the portal leaves it as it is (delete it by hand, once no "
        "workload runs on the flavor, and the next sync re-creates it)"
    )


def _named_topologies(observed: dict[Key, dict], leaving: set[Key]) -> set[str]:
    """Topologies named by flavors that stay (flavors being deleted go first)."""
    return {
        name
        for key, obj in observed.items()
        if key[0] == kueue.RESOURCE_FLAVOR
        and key not in leaving
        and (name := (obj.get("spec") or {}).get("topologyName"))
    }


def _topology_in_use(live: dict, named: set[str]) -> Action | None:
    """A Topology a flavor in the cluster still names stays: that flavor cannot let go."""
    key = kueue.object_key(live)
    if key[0] != kueue.TOPOLOGY or key[2] not in named:
        return None
    message = (
        f"a ResourceFlavor still names Topology {key[2]} (Kueue never unsets topologyName); "
        "kept until that flavor is deleted"
    )
    return Action(BLOCKED, key, observed=live, message=message)


def replanned(action: Action, live: dict | None, version: str) -> Action:
    """An update planned again against ``live``, re-read after the server answered 409.

    The drift found by the first read stays: it is what someone changed behind our
    back; what was written in between (a controller's own status write, say) is not.
    """
    again = _for_desired(action.key, action.desired, live, {}, version)
    return again if again.verb != UPDATE else replace(again, drift=action.drift)


def _drift(changes: tuple[Change, ...], last: dict | None, observed: dict) -> tuple[Change, ...]:
    """The changes whose cluster value is not what we applied last time."""
    if last is None:
        return ()
    return tuple(c for c in changes if last.get(render_path(c.path)) != observed.get(c.path))


def _for_leftover(live: dict, busy: dict[Key, int], version: str) -> Action:
    key = kueue.object_key(live)
    if key[0] in RELEASED:
        changes = diff({}, {p: v for p, v in project(live, version).items() if p[1] == "labels"})
        patch = merge_patch(changes, live["metadata"].get("resourceVersion"))
        return Action(
            UPDATE, key, observed=live, changes=changes, patch=patch, message=RELEASED[key[0]]
        )
    running = busy.get(key, 0)
    if key[0] in HOLDABLE and running:
        return _hold(key, live, running)
    return Action(DELETE, key, observed=live)


def _hold(key: Key, live: dict, running: int) -> Action:
    message = f"held: {running} workload(s) still admitted; deleted once they finish"
    if (live.get("spec") or {}).get("stopPolicy") == "Hold":
        return Action(HOLD, key, observed=live, message=message)
    change = Change(("spec", "stopPolicy"), (live.get("spec") or {}).get("stopPolicy"), "Hold")
    patch = merge_patch((change,), live["metadata"].get("resourceVersion"))
    return Action(HOLD, key, observed=live, changes=(change,), patch=patch, message=message)


def applied_fields(obj: dict, version: str) -> dict[str, Any]:
    """What we store after a write, to recognise drift next time (JSON-safe keys)."""
    return {render_path(path): value for path, value in project(obj, version).items()}
