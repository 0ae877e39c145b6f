"""``/simcluster/clock`` (read the clock; advance virtual time) and ``/metrics``.

GET  /simcluster/clock              {"mode", "now", "nowMs"}
POST /simcluster/clock/advance      {"seconds": N} or {"until": "<RFC 3339>"} (virtual clock only)
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING

from kueuemodel import format_timestamp, parse_timestamp
from simcluster.server import errors
from simcluster.server.dispatch import Request, Response

from . import metrics
from .clock import VIRTUAL

if TYPE_CHECKING:
    from .controller import Controller

EXPOSITION = "text/plain; version=0.0.4; charset=utf-8"


def clock_state(ctl: Controller) -> dict[str, object]:
    now = ctl.clock.now_ms()
    return {"mode": ctl.clock.mode, "now": format_timestamp(now), "nowMs": now}


def clock_route(ctl: Controller) -> Callable[[Request, tuple[str, ...]], Response]:
    def route(request: Request, rest: tuple[str, ...]) -> Response:
        if request.method == "GET" and not rest:
            return Response(200, clock_state(ctl))
        if request.method == "POST" and rest == ("advance",):
            return _advance(ctl, request)
        raise errors.path_not_found()

    return route


def _advance(ctl: Controller, request: Request) -> Response:
    if ctl.clock.mode != VIRTUAL:
        raise errors.ApiError(409, "Conflict", "the clock is real; start with --clock virtual")
    try:
        body = json.loads(request.body or b"{}")
        target = (
            parse_timestamp(body["until"])
            if "until" in body
            else ctl.clock.now_ms() + round(float(body.get("seconds", 0)) * 1000)
        )
    except (ValueError, TypeError, KeyError) as exc:
        raise errors.bad_request(
            f"expected {{'seconds': N}} or {{'until': timestamp}}: {exc}"
        ) from exc
    if target < ctl.clock.now_ms():
        raise errors.bad_request("the clock cannot go backwards")
    ctl.advance_to(target)
    return Response(200, clock_state(ctl))


def metrics_route(ctl: Controller) -> Callable[[], Response]:
    def route() -> Response:
        text = metrics.render(ctl)
        return Response(200, {}, raw=text.encode(), content_type=EXPOSITION)

    return route
