"""Times every HTTP request into ``qm_http_request_duration_seconds``."""

from __future__ import annotations

import time

from django.http import HttpRequest, HttpResponse

from core.observability.metrics import HTTP_REQUEST_DURATION

UNRESOLVED = "<unresolved>"


def view_name(request: HttpRequest) -> str:
    """The URL pattern's name, never the raw path (which would explode the label set)."""
    match = getattr(request, "resolver_match", None)
    if match is None:
        return UNRESOLVED
    return match.view_name or match._func_path


class MetricsMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        response = self.get_response(request)
        HTTP_REQUEST_DURATION.labels(
            view_name(request), request.method, str(response.status_code)
        ).observe(time.perf_counter() - started)
        return response
