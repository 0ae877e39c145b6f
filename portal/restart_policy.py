"""When a dead child of `make run` is started again, and when it is given up on.

A pure function of the times the child died: nothing here touches a process, so the
rules are unit-tested on plain numbers (``portal/tests/test_restart_policy.py``) and
``portal.supervisor`` only follows them. A child that dies now and then is restarted
after a short backoff that doubles with each recent death; one that keeps dying fast
(``give_up_after`` deaths within ``window_seconds``) is broken, not unlucky, and is
given up on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from core.retrying import backoff_seconds


@dataclass(frozen=True)
class RestartPolicy:
    give_up_after: int = 5  # deaths within the window
    window_seconds: float = 60.0
    first_backoff_seconds: float = 1.0
    max_backoff_seconds: float = 30.0


@dataclass(frozen=True)
class Decision:
    restart: bool
    delay_seconds: float  # how long to wait before starting it again
    recent_deaths: int  # deaths within the window, this one included


def decide(deaths: Sequence[float], policy: RestartPolicy) -> Decision:
    """What to do after the last of ``deaths`` (monotonic seconds, oldest first)."""
    if not deaths:
        raise ValueError("deaths: name at least the death being decided on, e.g. [12.5]")
    latest = deaths[-1]
    recent = sum(1 for moment in deaths if latest - moment < policy.window_seconds)
    if recent >= policy.give_up_after:
        return Decision(restart=False, delay_seconds=0.0, recent_deaths=recent)
    delay = backoff_seconds(
        recent, first=policy.first_backoff_seconds, cap=policy.max_backoff_seconds
    )
    return Decision(restart=True, delay_seconds=delay, recent_deaths=recent)
