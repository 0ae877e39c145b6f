"""Kubernetes resource quantities ("8", "500m", "64Gi", "1e3") as exact Decimals."""

import re
from decimal import Decimal, InvalidOperation

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {
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
}
_PATTERN = re.compile(
    r"^(?P<number>[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))"
    r"(?P<suffix>Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?$"
)
QUANTITY_RULE = "must be a Kubernetes quantity such as 8, 500m or 64Gi"


class QuantityError(ValueError):
    pass


def parse_quantity(text: str | int) -> Decimal:
    """Parse a quantity exactly; raise QuantityError with the rule on bad syntax."""
    match = _PATTERN.match(str(text).strip()) if text is not None else None
    if not match:
        raise QuantityError(QUANTITY_RULE)
    try:
        number = Decimal(match["number"])
    except InvalidOperation:
        raise QuantityError(QUANTITY_RULE) from None
    return number * _multiplier(match["suffix"] or "")


def _multiplier(suffix: str) -> Decimal:
    if suffix in _BINARY:
        return Decimal(_BINARY[suffix])
    if suffix in _DECIMAL:
        return _DECIMAL[suffix]
    return Decimal(10) ** int(suffix[1:])


def format_quantity(value: Decimal) -> str:
    """A plain decimal for people to read: 64, 0.5, 1.25."""
    if value == value.to_integral_value():
        return str(int(value))
    return format(value.normalize(), "f")
