"""Metric definitions and scrape-time gauges every layer may update; portal serves them."""
