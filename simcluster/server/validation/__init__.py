"""Admission for writes: prune and default like the API server, then validate.

``prepare(rtype, obj)`` returns the object as it would be stored (unknown
fields pruned, CRD defaults applied) and the pruned field paths;
``validate(rtype, obj, old)`` raises a 422 ``Invalid`` ApiError listing every
failed field. Core kinds only get metadata checks: the simulator stores them
as sent.
"""

from __future__ import annotations

from typing import Any

from simcluster.server.errors import Cause, invalid
from simcluster.server.resources import ResourceType
from simcluster.server.validation.kueue_schemas import SCHEMAS
from simcluster.server.validation.metadata import check_metadata
from simcluster.server.validation.webhooks import CHECKERS

Obj = dict[str, Any]


def prepare(rtype: ResourceType, obj: Obj) -> tuple[Obj, list[str]]:
    """Prune unknown fields and apply defaults (Kueue kinds); returns (object, pruned paths)."""
    schema = SCHEMAS.get(rtype.kind) if rtype.is_kueue else None
    if schema is None:
        return obj, []
    unknown: list[str] = []
    return schema.normalize(obj, "", unknown), unknown


def collect_causes(rtype: ResourceType, obj: Obj, old: Obj | None) -> list[Cause]:
    """All field errors: metadata, then schema, then webhook rules (only if the schema passed)."""
    causes = check_metadata(rtype, obj.get("metadata") or {})
    schema = SCHEMAS.get(rtype.kind) if rtype.is_kueue else None
    if schema is None:
        return causes
    schema_causes: list[Cause] = []
    schema.check(obj, "", schema_causes)
    if schema_causes:
        return causes + schema_causes
    return causes + CHECKERS[rtype.kind](obj, old)


def validate(rtype: ResourceType, obj: Obj, old: Obj | None) -> None:
    """Raise 422 Invalid when ``obj`` may not be stored (``old`` is None on create)."""
    causes = collect_causes(rtype, obj, old)
    if causes:
        raise invalid(rtype, (obj.get("metadata") or {}).get("name", ""), causes)
