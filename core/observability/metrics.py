"""Every metric the portal exports, in one place. Other apps import and update these.

Counters and histograms live in the process that updates them. Under gunicorn
and Celery's prefork pool, ``PROMETHEUS_MULTIPROC_DIR`` (set by
``portal/gunicorn.py`` and the worker's environment) makes prometheus-client keep
them in per-process files that the /metrics view adds up. Gauges that describe
the database (queue sync states, recorder lag) are computed at scrape time
instead, registered by their apps with ``core.observability.collectors``, so
every process reports the same.

Call sites for the other apps (one line each):

* ``NOTEBOOK_REQUESTS.labels(outcome="accepted").inc()`` when a notebook is requested,
  ``JOB_REQUESTS`` alike when a batch job is submitted (outcome: accepted / rejected /
  failed; both through ``apps.jobs.services.counting``);
* ``NOTEBOOK_CULLS.labels(reason="idle").inc()`` when one is culled
  (reason: idle / expired / admin);
* ``collectors.register_gauge(...)`` for a scrape-time value such as the history
  recorder's lag (see there).
"""

from __future__ import annotations

import os

from prometheus_client import Counter, Histogram

if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
    # prometheus-client writes one file per process there and needs the folder first.
    os.makedirs(os.environ["PROMETHEUS_MULTIPROC_DIR"], exist_ok=True)

# Seconds: an HTML page or API call should take well under one.
HTTP_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)
RECONCILE_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300)

HTTP_REQUEST_DURATION = Histogram(
    "qm_http_request_duration_seconds",
    "Time to answer an HTTP request, by view name, method and status code.",
    ("view", "method", "status"),
    buckets=HTTP_BUCKETS,
)

RECONCILE_DURATION = Histogram(
    "qm_reconcile_duration_seconds",
    "Duration of reconcile runs by trigger (change, schedule, manual) and outcome "
    "(ok, errors: some objects failed, failed: the cluster could not be read).",
    ("trigger", "outcome"),
    buckets=RECONCILE_BUCKETS,
)
RECONCILE_ERRORS = Counter(
    "qm_reconcile_errors_total",
    "Objects a reconcile could not converge (kind), or runs that failed outright (kind=run).",
    ("kind",),
)
DRIFT_REPAIRS = Counter(
    "qm_drift_repairs_total",
    "Out-of-band edits in the cluster reverted to the portal's policy, by kind.",
    ("kind",),
)

KUBE_REQUESTS = Counter(
    "qm_kube_requests_total",
    "Kubernetes API calls by group, resource, verb and HTTP status (0: unreachable).",
    ("group", "resource", "verb", "code"),
)
KUBE_REQUEST_DURATION = Histogram(
    "qm_kube_request_duration_seconds",
    "Latency of Kubernetes API calls by group, resource and verb.",
    ("group", "resource", "verb"),
    buckets=HTTP_BUCKETS,
)

CELERY_TASK_FAILURES = Counter(
    "qm_celery_task_failures_total",
    "Celery tasks that raised (after their last retry or without retries), by task name.",
    ("task",),
)
CELERY_TASK_RETRIES = Counter(
    "qm_celery_task_retries_total", "Celery task retries scheduled, by task name.", ("task",)
)

NOTEBOOK_REQUESTS = Counter(
    "qm_notebook_requests_total",
    "Notebook requests by outcome (accepted, rejected, failed).",
    ("outcome",),
)
JOB_REQUESTS = Counter(
    "qm_job_requests_total",
    "Batch job submissions by outcome (accepted, rejected, failed).",
    ("outcome",),
)
NOTEBOOK_CULLS = Counter(
    "qm_notebook_culls_total", "Notebooks stopped by the portal, by reason.", ("reason",)
)

UNREADABLE_QUANTITIES = Counter(
    "qm_unreadable_quantities_total",
    "Quantities the cluster reported that the portal could not read and skipped "
    "(never read as 0), by reader (live, job_status).",
    ("reader",),
)

NOTIFICATIONS_SENT = Counter(
    "qm_notifications_sent_total",
    "Notifications delivered, by channel (email, webhook) and kind.",
    ("channel", "kind"),
)
NOTIFICATION_FAILURES = Counter(
    "qm_notification_failures_total",
    "Notification delivery attempts that failed (each retry counts), by channel.",
    ("channel",),
)


def record_reconcile(trigger: str, seconds: float, errors: list[dict], drift: list[str]) -> None:
    """One finished run: its duration, objects that failed, and repaired drift by kind."""
    RECONCILE_DURATION.labels(trigger, "errors" if errors else "ok").observe(seconds)
    for error in errors:
        RECONCILE_ERRORS.labels(error.get("kind", "")).inc()
    for kind in drift:
        DRIFT_REPAIRS.labels(kind).inc()


def record_reconcile_failure(trigger: str, seconds: float) -> None:
    RECONCILE_DURATION.labels(trigger, "failed").observe(seconds)
    RECONCILE_ERRORS.labels("run").inc()
