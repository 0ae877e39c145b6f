"""The API's datetimes: every one in UTC as ``2026-12-02T10:31:05Z`` (``core.dates.iso_z``).

DRF's ``DateTimeField`` writes the current zone's local time; with ``TIME_ZONE`` set to
anything but UTC a ``Z`` format would then lie. ``ModelSerializer`` maps model
datetimes to ``UtcDateTimeField``; hand-declared ones use it directly.
"""

from __future__ import annotations

from datetime import UTC

from django.db import models
from rest_framework import serializers

from core.dates import ISO_Z


class UtcDateTimeField(serializers.DateTimeField):
    """Written in UTC with ``Z``; read as DRF reads any ISO 8601 datetime."""

    format = ISO_Z
    timezone = UTC


class ModelSerializer(serializers.ModelSerializer):
    """DRF's, with model ``DateTimeField``s written by ``UtcDateTimeField``."""

    serializer_field_mapping = {
        **serializers.ModelSerializer.serializer_field_mapping,
        models.DateTimeField: UtcDateTimeField,
    }
