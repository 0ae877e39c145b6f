"""Who listens to the informer, and where it keeps its lease and cursors.

Feature apps register here from their ``AppConfig.ready`` (the informer imports none of
them): each subscriber names the streams it needs and a switch read at run time, so
``override_settings`` and a settings change take effect on the next run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from informer.kinds import workload_ref

if TYPE_CHECKING:
    from core.kube import ResourceRef
    from informer.run import Delivery


@dataclass(frozen=True)
class Stream:
    """One watch: a kind, optionally narrowed by a label selector. Its name is its cursor."""

    name: str
    ref: Callable[[], ResourceRef]
    selector: str = ""

    @property
    def cursor(self) -> str:
        return self.name


@dataclass(frozen=True)
class Subscriber:
    name: str
    handle: Callable[[Delivery], dict | None]  # returns counters for the run's result
    streams: tuple[Stream, ...]
    enabled: Callable[[], bool] = lambda: True


class Saved(Protocol):
    resource_version: str
    updated_at: datetime


class CursorStore(Protocol):
    """The database side: one lease, one resumable cursor per stream."""

    def cursor(self, name: str) -> Saved: ...
    def acquire_lease(self, name: str, owner: str, seconds: float) -> bool: ...
    def release_lease(self, name: str, owner: str) -> None: ...
    def save_cursor(
        self, name: str, resource_version: str, *, events: int = 0, relisted: bool = False
    ) -> None: ...


_subscribers: dict[str, Subscriber] = {}
_store: list[CursorStore] = []


def subscribe(subscriber: Subscriber) -> None:
    """Register (or replace, on a second ``ready``) a subscriber under its name."""
    for stream in subscriber.streams:
        for other in _subscribers.values():
            same = next((s for s in other.streams if s.name == stream.name), stream)
            if same != stream:
                raise ValueError(f"stream {stream.name!r} is declared twice, differently")
    _subscribers[subscriber.name] = subscriber


def unsubscribe(name: str) -> None:
    _subscribers.pop(name, None)


def use_store(store: CursorStore) -> None:
    _store[:] = [store]


def store() -> CursorStore:
    if not _store:
        raise RuntimeError("no cursor store registered (the reports app provides it)")
    return _store[0]


def active() -> list[Subscriber]:
    """Enabled subscribers, in registration order."""
    return [s for s in _subscribers.values() if s.enabled()]


# Every Workload: the recorder's history and job/notebook status both follow it. Its
# cursor keeps the recorder's old name, so an upgrade resumes instead of relisting.
WORKLOADS = Stream("workloads", workload_ref)
