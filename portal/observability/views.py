"""``/metrics`` in Prometheus' text format, behind an optional bearer token."""

from __future__ import annotations

import hmac
import os

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.views.decorators.cache import never_cache
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.multiprocess import MultiProcessCollector

from core.observability.collectors import DatabaseCollector


def exposition(*, with_database: bool) -> bytes:
    """This process's metrics (or all processes' in multiprocess mode), plus DB gauges."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        MultiProcessCollector(registry)
        body = generate_latest(registry)
    else:
        body = generate_latest(REGISTRY)
    if with_database:
        database = CollectorRegistry()
        database.register(DatabaseCollector())
        body += generate_latest(database)
    return body


def _authorized(request: HttpRequest) -> bool:
    token = settings.METRICS_TOKEN
    if not token:
        return True  # open: the deployment restricts who can reach it (docs/operations.md)
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(given.encode(), token.encode())


@never_cache
def metrics(request: HttpRequest) -> HttpResponse:
    if not _authorized(request):
        response = HttpResponse(
            "metrics need 'Authorization: Bearer <QM_METRICS_TOKEN>'\n", status=401
        )
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    return HttpResponse(exposition(with_database=True), content_type=CONTENT_TYPE_LATEST)
