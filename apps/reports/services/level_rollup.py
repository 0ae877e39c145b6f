"""Keeping the ``LevelChange`` rollup in step with the recorded transitions.

Every write of transitions goes through ``changes_of`` (before) and ``apply_since``
(after): a workload's contribution depends on all its transitions in order, and a
rebuilt one may land before steps already recorded, so the rollup gets the difference
between the workload's contributions after the write and before it. Changes are added
to the rows (an upsert), so writers never overwrite each other's sums.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from itertools import groupby

from django.db import connection, transaction

from apps.reports.compute.level_changes import LEVELS, level_changes, per_minute
from apps.reports.models import LevelChange, WorkloadRecord, WorkloadTransition
from apps.reports.timeline import RANK

REBUILD_CHUNK = 5_000
_UPSERT = f"""
    INSERT INTO {LevelChange._meta.db_table} (team_slug, minute, {", ".join(LEVELS)})
    VALUES (%s, %s, %s, %s, %s)
    ON CONFLICT (team_slug, minute) DO UPDATE SET
    {", ".join(f"{level} = {LevelChange._meta.db_table}.{level} + excluded.{level}" for level in LEVELS)}
"""


def changes_of(workload_ids: Iterable[int]) -> Counter:
    """What the workloads' recorded transitions contribute, per (team, minute, level)."""
    ids = sorted(set(workload_ids))
    owners = {
        pk: (team, gpus)
        for pk, team, gpus in WorkloadRecord.objects.filter(pk__in=ids).values_list(
            "pk", "team_slug", "gpus"
        )
    }
    rows = (
        WorkloadTransition.objects.filter(workload_id__in=ids)
        .order_by("workload_id")
        .values_list("workload_id", "type", "at")
    )
    totals: Counter = Counter()
    for pk, group in groupby(rows.iterator(chunk_size=REBUILD_CHUNK), key=lambda row: row[0]):
        steps = sorted(
            ((kind, at.timestamp()) for _, kind, at in group),
            key=lambda s: (s[1], RANK.get(s[0], 99)),
        )
        team, gpus = owners[pk]
        totals.update(per_minute(team, level_changes(gpus, steps)))
    return totals


def apply_since(before: Counter, workload_ids: Iterable[int]) -> None:
    """Add to the rollup what the workloads' transitions contribute now beyond ``before``."""
    difference = changes_of(workload_ids)
    difference.subtract(before)
    _add(difference)


def _rows(changes: Counter) -> dict[tuple[str, int], list[int]]:
    """(team, minute) → its deltas in ``LEVELS`` order, leaving out minutes with none."""
    rows: dict[tuple[str, int], list[int]] = {}
    for (team, minute, level), delta in changes.items():
        if delta:
            rows.setdefault((team, minute), [0, 0, 0])[LEVELS.index(level)] += delta
    return {key: deltas for key, deltas in rows.items() if any(deltas)}


def _add(changes: Counter) -> None:
    if rows := _rows(changes):
        with connection.cursor() as cursor:
            cursor.executemany(_UPSERT, [(t, m, *d) for (t, m), d in sorted(rows.items())])


@transaction.atomic
def rebuild_level_rollup() -> int:
    """Compute the rollup again from every recorded transition; returns its rows.

    For history recorded before the rollup existed, or written around the recorder
    (a bulk load). The table lock makes a recorder's concurrent upsert wait for the
    rebuild's commit, so it adds its difference to the rebuilt sums, not to rows
    about to be deleted.
    """
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(f"LOCK TABLE {LevelChange._meta.db_table} IN EXCLUSIVE MODE")
    LevelChange.objects.all().delete()
    ids = list(WorkloadRecord.objects.order_by("pk").values_list("pk", flat=True))
    totals: Counter = Counter()
    for first in range(0, len(ids), REBUILD_CHUNK):
        totals.update(changes_of(ids[first : first + REBUILD_CHUNK]))
    rows = [
        LevelChange(team_slug=team, minute=minute, **dict(zip(LEVELS, deltas, strict=True)))
        for (team, minute), deltas in _rows(totals).items()
    ]
    LevelChange.objects.bulk_create(rows, batch_size=REBUILD_CHUNK)
    return len(rows)
