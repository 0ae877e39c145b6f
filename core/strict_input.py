"""API bodies accept only the fields they declare.

DRF drops fields a serializer does not know, so a misspelt ``borowing_limit`` would be
saved as "no limit" without a word. Every write serializer takes ``RejectUnknownFields``;
``core.api_errors`` answers ``unknown_field`` naming the first such field.
"""

from __future__ import annotations

from collections.abc import Mapping

from drf_spectacular.extensions import OpenApiSerializerExtension
from rest_framework import serializers
from rest_framework.settings import api_settings

UNKNOWN_FIELD = "unknown_field"


class RejectUnknownFields:
    """Serializer mixin: a body key that is not a declared field is an error."""

    def to_internal_value(self, data):
        if isinstance(data, Mapping):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError(
                    {unknown[0]: ["unknown field"]}, code=UNKNOWN_FIELD
                )
        return super().to_internal_value(data)


class RejectUnknownFieldsSchema(OpenApiSerializerExtension):
    """The schema says what the mixin does: a request body has no other properties."""

    target_class = RejectUnknownFields
    match_subclasses = True

    def map_serializer(self, auto_schema, direction):
        schema = auto_schema._map_serializer(self.target, direction, bypass_extensions=True)
        if direction == "request":
            schema["additionalProperties"] = False
        return schema


def first_unknown_field(detail, path: str = "") -> str | None:
    """Path (``quotas[0].foo``) of the first field DRF reports as unknown, or None."""
    if isinstance(detail, Mapping):
        items = detail.items()
    elif isinstance(detail, list) and any(isinstance(i, Mapping | list) for i in detail):
        items = enumerate(detail)  # nested serializers, one entry per list item
    else:
        messages = detail if isinstance(detail, list) else [detail]
        return path if any(getattr(m, "code", None) == UNKNOWN_FIELD for m in messages) else None
    for key, inner in items:
        found = first_unknown_field(inner, _child(path, key))
        if found is not None:
            return found
    return None


def _child(path: str, key) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    if key == api_settings.NON_FIELD_ERRORS_KEY:
        return path
    return f"{path}.{key}" if path else str(key)
