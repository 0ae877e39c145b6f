"""The live controller of the simulated cluster (Kueue + job controllers + kubelet + exporters).

``attach(server, clock="virtual")`` builds a ``Controller`` over a running
``SimServer`` and wires it in: the visibility API, ``/metrics`` and
``/simcluster/clock``. In real mode a thread ticks every ``tick`` seconds on
the wall clock; in virtual mode the thread only reacts to new objects and
time moves through ``Controller.advance`` or ``POST /simcluster/clock/advance``.
"""

from __future__ import annotations

from typing import Any

from .clock import REAL, VIRTUAL, SimClock
from .controller import Controller
from .http_routes import clock_route, metrics_route
from .metrics_history import history_route

VIRTUAL_POLL_SECONDS = 0.05

__all__ = ["REAL", "VIRTUAL", "Controller", "SimClock", "attach"]


def attach(
    server: Any,
    clock: str = REAL,
    *,
    start_ms: int | None = None,
    tick: float = 0.5,
    prices: dict[str, float] | None = None,
    run: bool = True,
    kueue_config: dict | None = None,
) -> Controller:
    """Create the controller for ``server`` and (unless ``run=False``) start its thread.

    ``kueue_config`` is a Kueue ``Configuration`` (config.kueue.x-k8s.io), as the
    real controller reads from its config file; ``None`` is Kueue's default.
    """
    controller = Controller(
        server, SimClock(clock, start_ms), prices=prices, kueue_config=kueue_config
    )
    server.pending_provider = lambda _cluster, cq: controller.pending(cq)
    server.metrics_provider = metrics_route(controller)
    server.hook_extensions["clock"] = clock_route(controller)
    server.hook_extensions["metrics"] = history_route(controller)
    server.on_stop.append(controller.stop)
    server.controller = controller
    if run:
        controller.start(tick if clock == REAL else VIRTUAL_POLL_SECONDS)
    return controller
