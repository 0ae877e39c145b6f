"""Quantities as the portal reads and shows them.

Parsing is the admission model's one bounded parser (``kueuemodel.quantity``):
``parse_quantity`` here is its exact ``Decimal`` reading, so a value a person
typed is checked by the same rules the model and the simulated cluster use.
This module adds what only the portal needs: whole-device rules and display.
"""

from __future__ import annotations

from decimal import Decimal

from kueuemodel import QuantityError
from kueuemodel import parse_decimal as parse_quantity

__all__ = [
    "QuantityError",
    "format_quantity",
    "is_whole_device",
    "parse_quantity",
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


def format_quantity(value: Decimal) -> str:
    """A plain decimal for people to read: 64, 0.5, 1.25."""
    if value == value.to_integral_value():
        return str(int(value))
    return format(value.normalize(), "f")
