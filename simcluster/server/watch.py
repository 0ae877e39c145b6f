"""Watch streams: initial state, replay from a resourceVersion, live events, bookmarks.

``watch_events`` is a generator of event dicts ready to be written as one JSON
line each. It ends on ``timeoutSeconds``, when the server shuts down, or when
``client_gone()`` reports a closed connection.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from simcluster.server import conversion, errors
from simcluster.server.operations import Cluster, Target
from simcluster.server.selectors import Predicate
from simcluster.server.store import StoredEvent, TooOldError

Obj = dict[str, Any]
POLL_SECONDS = 0.5


@dataclass(frozen=True)
class WatchOptions:
    """Query options of a watch request."""

    resource_version: str = ""
    timeout_seconds: float = 1800.0
    bookmarks: bool = False
    bookmark_interval: float = 10.0


def _in_scope(target: Target, obj: Obj | None) -> bool:
    if obj is None:
        return False
    namespace = (obj.get("metadata") or {}).get("namespace") or ""
    return not (target.rtype.namespaced and target.namespace) or namespace == target.namespace


def translate(target: Target, predicate: Predicate, event: StoredEvent) -> Obj | None:
    """The event a filtered watcher sees (entering/leaving the selection), or None."""
    now = _in_scope(target, event.obj) and predicate(_view(target, event.obj))
    before = _in_scope(target, event.prev) and predicate(_view(target, event.prev))
    if event.type == "DELETED":
        kind = "DELETED" if before else None
    elif now and before:
        kind = "MODIFIED"
    elif now:
        kind = "ADDED"
    else:
        kind = "DELETED" if before else None
    return {"type": kind, "object": _view(target, event.obj)} if kind else None


def _view(target: Target, obj: Obj) -> Obj:
    return conversion.from_storage(target.rtype, target.version, obj)


def bookmark(target: Target, rv: int) -> Obj:
    rtype = target.rtype
    obj = {
        "kind": rtype.kind,
        "apiVersion": rtype.api_version(target.version),
        "metadata": {"resourceVersion": str(rv)},
    }
    return {"type": "BOOKMARK", "object": obj}


def expired(error: TooOldError) -> Obj:
    return {"type": "ERROR", "object": errors.gone(str(error)).to_status()}


def _initial(cluster: Cluster, target: Target, predicate: Predicate) -> tuple[list[Obj], int]:
    listing = cluster.list(target, predicate)
    events = [{"type": "ADDED", "object": item} for item in listing["items"]]
    return events, int(listing["metadata"]["resourceVersion"])


def _start(
    cluster: Cluster, target: Target, predicate: Predicate, rv_text: str
) -> tuple[list[Obj], int]:
    """Events to send first and the resourceVersion to continue after."""
    if rv_text in ("", "0"):
        return _initial(cluster, target, predicate)
    try:
        rv = int(rv_text)
    except ValueError as exc:
        raise errors.bad_request(f"invalid resource version: {rv_text!r}") from exc
    return _replay(cluster, target, predicate, rv)


def _replay(
    cluster: Cluster, target: Target, predicate: Predicate, rv: int
) -> tuple[list[Obj], int]:
    stored, current = cluster.store.events_after(rv, target.rtype.key)
    events = [translate(target, predicate, event) for event in stored]
    return [event for event in events if event], max(rv, current)


def watch_events(
    cluster: Cluster,
    target: Target,
    predicate: Predicate,
    opts: WatchOptions,
    client_gone: Callable[[], bool] = lambda: False,
) -> Iterator[Obj]:
    """Yield watch events until timeout, shutdown or disconnect (see module doc)."""
    try:
        first, last_rv = _start(cluster, target, predicate, opts.resource_version)
    except TooOldError as exc:
        yield expired(exc)
        return
    store = cluster.store
    # _start has checked that a resumed watch's resourceVersion is a number.
    resumed = None if opts.resource_version in ("", "0") else int(opts.resource_version)
    position = store.watchers.open(target.rtype.key, resumed)
    try:
        yield from first
        store.watchers.advance(position, last_rv)
        yield from _follow(cluster, target, predicate, opts, client_gone, last_rv, position)
    finally:
        store.watchers.close(position)


def _follow(
    cluster: Cluster,
    target: Target,
    predicate: Predicate,
    opts: WatchOptions,
    client_gone: Callable[[], bool],
    last_rv: int,
    position: int,
) -> Iterator[Obj]:
    deadline = time.monotonic() + opts.timeout_seconds
    last_sent = time.monotonic()
    store = cluster.store
    while not store.closed and not client_gone():
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return
        if store.wait_for_change(last_rv, min(POLL_SECONDS, remaining)):
            try:
                events, last_rv = _replay(cluster, target, predicate, last_rv)
            except TooOldError as exc:
                yield expired(exc)
                return
            for event in events:
                last_sent = time.monotonic()
                yield event
            store.watchers.advance(position, last_rv)
        if opts.bookmarks and time.monotonic() - last_sent >= opts.bookmark_interval:
            last_sent = time.monotonic()
            yield bookmark(target, last_rv)
