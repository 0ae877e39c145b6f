"""Quantities as the portal reads and shows them.

Parsing is the admission model's one bounded parser (``kueuemodel.quantity``):
the portal counts in whole units as exact ``Decimal`` values (``parse_units``,
``format_units``), where the admission model counts in integer milli-units
(``parse_milli``, ``format_milli``). A value a person typed is checked by the
same rules the model and the simulated cluster use. This module adds what only
the portal needs: whole-device rules and display.
"""

from __future__ import annotations

import logging
from decimal import Decimal

from core.observability.metrics import UNREADABLE_QUANTITIES
from kueuemodel import QuantityError, parse_units, quantity_value

log = logging.getLogger(__name__)

__all__ = [
    "QuantityError",
    "format_amount",
    "format_units",
    "is_whole_device",
    "observed_units",
    "parse_units",
    "whole_device_error",
]


def is_whole_device(resource: str) -> bool:
    """Kubernetes extended resources (a domain other than kubernetes.io, such as
    nvidia.com/gpu or nvidia.com/mig-1g.10gb) are counted in whole devices: pods may
    not request a fraction of one, so a fractional quota of them means nothing."""
    domain, _, _ = (resource or "").rpartition("/")
    return bool(domain) and not domain.endswith("kubernetes.io")


def whole_device_error(resource: str, value: Decimal) -> str | None:
    if is_whole_device(resource) and value != value.to_integral_value():
        return f"must be a whole number: {resource} is counted in whole devices"
    return None


def format_units(value: Decimal) -> str:
    """Whole units as a plain decimal for people to read: 64, 0.5, 1.25."""
    if value == value.to_integral_value():
        return str(int(value))
    return format(value.normalize(), "f")


BYTE_RESOURCES = ("memory", "ephemeral-storage")
BINARY_SUFFIXES = (("Pi", 1024**5), ("Ti", 1024**4), ("Gi", 1024**3), ("Mi", 1024**2), ("Ki", 1024))


def format_amount(resource: str, value: Decimal) -> str:
    """An amount of ``resource`` as people read it and Kubernetes parses it, exactly.

    Bytes take the largest binary suffix that divides them (549755813888 → 512Gi,
    1610612736 → 1536Mi); a value no suffix divides stays in bytes. Other resources
    are plain units (``format_units``).
    """
    if resource in BYTE_RESOURCES and value == value.to_integral_value() and value > 0:
        for suffix, size in BINARY_SUFFIXES:
            if value % size == 0:
                return f"{int(value) // size}{suffix}"
    return format_units(value)


def observed_units(value, *, where: str, reader: str) -> Decimal | None:
    """A quantity the cluster reported, in whole units; an absent one is 0 (none used).

    Read as the API server reads it (``quantity_value``), so a stored value finer than
    1n is not refused. One it cannot read is logged naming ``where`` (object and field),
    counted in ``qm_unreadable_quantities_total{reader}`` and returned as None for the
    caller to skip: never read as 0.
    """
    if value in (None, ""):
        return Decimal(0)
    try:
        return quantity_value(value)
    except QuantityError as exc:
        log.warning("skipped unreadable quantity %r at %s: %s", value, where, exc)
        UNREADABLE_QUANTITIES.labels(reader=reader).inc()
        return None
