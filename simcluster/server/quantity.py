"""Kubernetes resource quantities ("8", "500m", "64Gi", "1e3") as Decimals."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

# The pattern the Kueue CRDs put on every quantity field.
QUANTITY_PATTERN = re.compile(
    r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))"
    r"(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$"
)

_SUFFIXES = {
    "n": Decimal("1e-9"),
    "u": Decimal("1e-6"),
    "m": Decimal("1e-3"),
    "": Decimal(1),
    "k": Decimal("1e3"),
    "M": Decimal("1e6"),
    "G": Decimal("1e9"),
    "T": Decimal("1e12"),
    "P": Decimal("1e15"),
    "E": Decimal("1e18"),
    "Ki": Decimal(2**10),
    "Mi": Decimal(2**20),
    "Gi": Decimal(2**30),
    "Ti": Decimal(2**40),
    "Pi": Decimal(2**50),
    "Ei": Decimal(2**60),
}


def is_quantity(value: object) -> bool:
    """True for an int (not bool) or a string matching the quantity pattern."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    return isinstance(value, str) and QUANTITY_PATTERN.match(value) is not None


def parse_quantity(value: object) -> Decimal:
    """The numeric value of a quantity; ValueError if it is not one."""
    if not is_quantity(value):
        raise ValueError(f"not a quantity: {value!r}")
    if isinstance(value, int):
        return Decimal(value)
    text = str(value)
    suffix = text.lstrip("+-0123456789.")
    number = text[: len(text) - len(suffix)]
    try:
        if suffix[:1] in ("e", "E"):
            return Decimal(number) * (Decimal(10) ** Decimal(suffix[1:]))
        return Decimal(number) * _SUFFIXES[suffix]
    except (InvalidOperation, KeyError) as exc:
        raise ValueError(f"not a quantity: {value!r}") from exc
