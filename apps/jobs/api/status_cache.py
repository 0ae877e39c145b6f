"""The notebook status poll, rendered once per notebook version and reused for a short while.

Every write to a notebook bumps ``Notebook.version`` (the conditional updates in
``apps.jobs.services``), so a new version is a new key and a stale entry is never read
again. Visibility is still checked in the database on every request (one narrow query
through ``visible_to``), so an entry is only ever served to someone who may see that
notebook now; the rendering itself depends on nothing about the reader. The TTL bounds
what the version doesn't cover: a renamed team, flavor, profile or user.

That query is the poll's one database round trip, and building it through the ORM cost
more than running it, so its SQL is compiled once per rule of ``visible_to``
(``core.compiled_query``) and reused with the reader's and the notebook's ids.
"""

from __future__ import annotations

import copy

from django.core.cache import cache
from django.db import connections
from django.http import Http404

from apps.jobs.api.serializers import NotebookSerializer
from apps.jobs.models import Notebook
from apps.jobs.querysets import NotebookQuerySet
from core.compiled_query import CompiledQuery

TTL_SECONDS = 30
_NAME_AND_VERSION = CompiledQuery()


def rendered_status(user, pk, *, active_only: bool) -> dict:
    """``NotebookSerializer`` data of notebook ``pk`` if ``user`` sees it (404 if not)."""
    notebook_id = _notebook_id(pk)
    rows = _NAME_AND_VERSION.rows(
        (NotebookQuerySet.visibility_kind(user), active_only),
        lambda user_id, row_id: (
            _visible(_as_user(user, user_id), active_only)
            .filter(pk=row_id)
            .values_list("name", "version")
        ),
        user.pk,
        notebook_id,
    )
    if not rows:
        raise Http404(f"No {Notebook._meta.object_name} matches the given query.")
    # The name is random per notebook, so a reused id (tests resetting sequences) can't hit.
    data = cache.get(_key(notebook_id, *rows[0]))
    if data is None:
        notebook = _visible(user, active_only).for_status().filter(pk=notebook_id).first()
        if notebook is None:  # gone since the row above was read
            raise Http404(f"No {Notebook._meta.object_name} matches the given query.")
        data = dict(NotebookSerializer(notebook).data)
        # Keyed by the version just read with the data, not the one above: a write in
        # between must not file new data under the old version (or old under new).
        cache.set(_key(notebook_id, notebook.name, notebook.version), data, TTL_SECONDS)
    return data


def _visible(user, active_only: bool) -> NotebookQuerySet:
    notebooks = Notebook.objects.visible_to(user)
    return notebooks.active() if active_only else notebooks


def _as_user(user, user_id: int):
    # The reader with another id: the query is compiled with stand-ins for the ids.
    stand_in = copy.copy(user)
    stand_in.pk = user_id
    return stand_in


def _notebook_id(pk) -> int:
    """The id as ``filter(pk=…)`` reads it; what it could never match is 404, as there."""
    field = Notebook._meta.pk
    try:
        value = field.get_prep_value(pk)
    except (TypeError, ValueError):
        raise Http404 from None
    low, high = connections[Notebook.objects.db].ops.integer_field_range(field.get_internal_type())
    if not low <= value <= high:
        raise Http404(f"No {Notebook._meta.object_name} matches the given query.")
    return value


def _key(pk: int, name: str, version: int) -> str:
    return f"notebook-status:{pk}:{name}:{version}"
