"""Who listens to the informer (its lease and cursors are ``informer.cursors``).

Feature apps register here from their ``AppConfig.ready`` (the informer imports none of
them): each subscriber names the streams it needs and a switch read at run time, so
``override_settings`` and a settings change take effect on the next run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from informer.kinds import JOB_LABEL, POD, workload_ref

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


_subscribers: dict[str, Subscriber] = {}


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


def active() -> list[Subscriber]:
    """Enabled subscribers, in registration order."""
    return [s for s in _subscribers.values() if s.enabled()]


# Every Workload: the recorder's history and job/notebook status both follow it. Its
# cursor keeps the recorder's old name, so an upgrade resumes instead of relisting.
WORKLOADS = Stream("workloads", workload_ref)

# The pods of the portal's batch Jobs: job status follows them, and the recorder reads
# the checkpoint their trainers report in their termination messages.
JOB_PODS = Stream("job-pods", lambda: POD, JOB_LABEL)
