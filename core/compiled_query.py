"""Hot one-row reads whose SQL never changes but for a few values, compiled once per process.

For a lookup by key, building and compiling the queryset costs several times PostgreSQL's
answer (the notebook status poll: filters, a subquery, the compiler, all per request).
``CompiledQuery`` builds the queryset once per ``kind`` with stand-in values, keeps its SQL
and parameters, and on each call swaps the stand-ins for the real values. The queryset
stays the one definition of what is read: nothing here knows what the SQL says.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from django.core.exceptions import EmptyResultSet
from django.db import connections
from django.db.models import QuerySet

# Inside a bigint's range (so the ORM keeps them as parameters) and never a real id.
STAND_INS = (9_007_199_254_740_881, 9_007_199_254_740_997, 9_007_199_254_741_049)


class _Slot(int):
    """A parameter to be replaced by the value at ``index``."""

    index: int


def _slot(value: int, index: int) -> _Slot:
    slot = _Slot(value)
    slot.index = index
    return slot


class CompiledQuery:
    """``rows(kind, build, *values)``: what ``build(*values)`` selects, compiled once per kind.

    ``kind`` must name everything besides ``values`` that shapes the queryset (e.g. which
    branch of a visibility rule applies): ``build`` runs only the first time a kind is
    seen, with stand-ins for ``values``, and must pass each value it uses to the query
    as a parameter of its own (filters do); one folded into the SQL text or into another
    parameter is refused.
    """

    def __init__(self) -> None:
        self.compiled: dict[Hashable, tuple[str, tuple, str] | None] = {}

    def rows(self, kind: Hashable, build: Callable[..., QuerySet], *values: int) -> list[tuple]:
        if kind not in self.compiled:
            # Two threads may both compile a new kind: the same answer, stored twice.
            self.compiled[kind] = _compile(build, len(values))
        entry = self.compiled[kind]
        if entry is None:  # the queryset matches nothing (``none()``)
            return []
        sql, params, using = entry
        actual = [values[p.index] if isinstance(p, _Slot) else p for p in params]
        with connections[using].cursor() as cursor:
            cursor.execute(sql, actual)
            return cursor.fetchall()


def _compile(build: Callable[..., QuerySet], count: int) -> tuple[str, tuple, str] | None:
    stand_ins = STAND_INS[:count]
    queryset = build(*stand_ins)
    try:
        sql, params = queryset.query.get_compiler(queryset.db).as_sql()
    except EmptyResultSet:
        return None
    slots = tuple(
        _slot(p, stand_ins.index(p)) if type(p) is int and p in stand_ins else p for p in params
    )
    # A value in the SQL text, or turned into another parameter (a string, a sum), would
    # be run with the first caller's value for everyone. (A value the query ignores, such
    # as the reader's id where a rule lets them see everything, is simply not there.)
    baked = [sql, *(str(p) for p in slots if not isinstance(p, _Slot))]
    if any(str(v)[:12] in text for v in stand_ins for text in baked):
        raise ValueError("every value must reach the SQL as a parameter of its own")
    return sql, slots, queryset.db
