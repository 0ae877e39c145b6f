"""The notebook status poll, rendered once per notebook version and reused for a short while.

Every write to a notebook bumps ``Notebook.version`` (the conditional updates in
``apps.jobs.services``), so a new version is a new key and a stale entry is never read
again. Visibility is still checked in the database on every request (one narrow query
through ``visible_to``), so an entry is only ever served to someone who may see that
notebook now; the rendering itself depends on nothing about the reader. The TTL bounds
what the version doesn't cover: a renamed team, flavor, profile or user.
"""

from __future__ import annotations

from django.core.cache import cache
from rest_framework.generics import get_object_or_404

from apps.jobs.api.serializers import NotebookSerializer
from apps.jobs.querysets import NotebookQuerySet

TTL_SECONDS = 30


def rendered_status(visible: NotebookQuerySet, pk) -> dict:
    """``NotebookSerializer`` data of notebook ``pk`` out of ``visible`` (404 if absent)."""
    # The name is random per notebook, so a reused id (tests resetting sequences) can't hit.
    name, version = get_object_or_404(visible.values_list("name", "version"), pk=pk)
    data = cache.get(_key(pk, name, version))
    if data is None:
        notebook = get_object_or_404(visible.for_status(), pk=pk)
        data = dict(NotebookSerializer(notebook).data)
        # Keyed by the version just read with the data, not the one above: a write in
        # between must not file new data under the old version (or old under new).
        cache.set(_key(pk, notebook.name, notebook.version), data, TTL_SECONDS)
    return data


def _key(pk, name: str, version: int) -> str:
    return f"notebook-status:{pk}:{name}:{version}"
