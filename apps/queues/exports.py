"""Pure rendering of the audit log as CSV rows."""

import json
from collections.abc import Iterable, Iterator

from core.dates import iso_z

AUDIT_CSV_HEADER = [
    "id",
    "at",
    "actor",
    "action",
    "team",
    "object_type",
    "object_id",
    "object",
    "changes",
    "reason",
    "change_request",
]


def audit_csv_rows(entries: Iterable) -> Iterator[list[str]]:
    yield AUDIT_CSV_HEADER
    for entry in entries:
        yield [
            str(entry.pk),
            iso_z(entry.at),
            entry.actor_name,
            entry.action,
            entry.team.slug if entry.team_id else "",
            entry.object_type,
            entry.object_id,
            entry.object_repr,
            json.dumps(entry.changes, sort_keys=True),
            entry.reason,
            str(entry.change_request_id or ""),
        ]
