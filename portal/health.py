"""Liveness and readiness probes.

``/healthz`` answers as long as the process serves requests. ``/readyz`` checks
what a request needs: the database and the Celery broker; 503 names what failed.
"""

from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache

from portal.celery import app as celery_app

BROKER_TIMEOUT_SECONDS = 2.0


def check_database() -> str | None:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception as exc:  # any driver error means "not ready"
        return f"database unreachable: {exc}"
    return None


def check_broker() -> str | None:
    try:
        with celery_app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=BROKER_TIMEOUT_SECONDS)
    except Exception as exc:  # kombu raises transport-specific errors
        return f"broker unreachable: {exc}"
    return None


@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"status": "ok"})


@never_cache
def readyz(request: HttpRequest) -> JsonResponse:
    problems = [p for p in (check_database(), check_broker()) if p]
    if problems:
        return JsonResponse({"status": "unavailable", "reasons": problems}, status=503)
    return JsonResponse({"status": "ready"})
