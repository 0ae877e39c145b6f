"""Celery signal receivers: task failures and retries as counters, and the worker's
own metrics endpoint (``QM_WORKER_METRICS_PORT``) for what runs in workers."""

from __future__ import annotations

import logging
import threading
from wsgiref.simple_server import WSGIRequestHandler, make_server

from celery import signals
from django.conf import settings
from prometheus_client import CONTENT_TYPE_LATEST
from prometheus_client.exposition import ThreadingWSGIServer

from core.observability.metrics import CELERY_TASK_FAILURES, CELERY_TASK_RETRIES

log = logging.getLogger(__name__)


@signals.task_failure.connect
def _count_failure(sender=None, **_: object) -> None:
    CELERY_TASK_FAILURES.labels(getattr(sender, "name", str(sender))).inc()


@signals.task_retry.connect
def _count_retry(sender=None, **_: object) -> None:
    CELERY_TASK_RETRIES.labels(getattr(sender, "name", str(sender))).inc()


@signals.worker_init.connect
def _serve_worker_metrics(**_: object) -> None:
    """Reconcile, notification and culling counters are updated in workers, not the web."""
    port = settings.WORKER_METRICS_PORT
    if port:
        server = make_server(
            "0.0.0.0", port, _metrics_app, server_class=ThreadingWSGIServer, handler_class=_Quiet
        )
        threading.Thread(target=server.serve_forever, daemon=True, name="metrics").start()
        log.info("worker metrics on :%s/metrics", port)


def _metrics_app(environ: dict, start_response) -> list[bytes]:
    from portal.observability.views import exposition

    if environ.get("PATH_INFO") != "/metrics":
        start_response("404 Not Found", [("Content-Type", "text/plain")])
        return [b"not found\n"]
    start_response("200 OK", [("Content-Type", CONTENT_TYPE_LATEST)])
    return [exposition(with_database=False)]


class _Quiet(WSGIRequestHandler):
    def log_message(self, *args: object) -> None:  # one line per scrape is noise
        pass
