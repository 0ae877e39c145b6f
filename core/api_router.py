"""The one router every app's API registers its viewsets with."""

from __future__ import annotations

from rest_framework.routers import DefaultRouter


class ApiRouter(DefaultRouter):
    """DRF's default router without the ``.json`` format suffix routes.

    The API answers JSON only (``Accept`` chooses among renderers if ever there are
    more), so a suffix adds nothing but a second URL per route, and each suffixed route
    passes a ``format`` argument that every overridden action would have to accept:
    one that forgot answered 500. ``/api/v1/queues/3.json`` is a 404 like any unknown
    URL.
    """

    include_format_suffixes = False
