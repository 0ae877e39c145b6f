"""Serving Prometheus metrics: the /metrics view, HTTP timing and Celery signal counters.
The metrics themselves and the scrape-time gauges live in ``core.observability``."""
