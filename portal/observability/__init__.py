"""Prometheus metrics: definitions (``metrics``), the /metrics view, HTTP timing,
Celery signal counters and scrape-time gauges read from the database."""
