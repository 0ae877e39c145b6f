"""Kubernetes resource quantities ("8", "500m", "64Gi", "1e3") as exact Decimals.

The one parser of quantities a person or a client typed. It is bounded: text,
digits, exponent and magnitude all have limits, so "1e9999999" or a 71-digit
number is a rule broken (``QuantityError``), never ``decimal.Overflow``, a
string too long for its column, or an integer too large to print.
"""

from __future__ import annotations

import re
from decimal import Decimal, localcontext

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
# Every quantity column is CharField(max_length=64).
MAX_TEXT = 64
MAX_DIGITS = 30
# 1e-9 is Kubernetes' finest unit (1n) and 1e18 its largest decimal suffix (1E).
MIN_EXPONENT, MAX_EXPONENT = -9, 18
# Kubernetes serialises a quantity's value as a signed 64-bit integer.
MAX_MAGNITUDE = Decimal(2**63 - 1)
SMALLEST = Decimal("1e-9")

QUANTITY_RULE = "must be a Kubernetes quantity such as 8, 500m or 64Gi"
TEXT_RULE = f"must be a Kubernetes quantity of at most {MAX_TEXT} characters"
DIGITS_RULE = f"must be a Kubernetes quantity of at most {MAX_DIGITS} digits"
EXPONENT_RULE = (
    f"must be a Kubernetes quantity with an exponent from {MIN_EXPONENT} to {MAX_EXPONENT}"
)
MAGNITUDE_RULE = "must be a Kubernetes quantity no larger than 2^63-1 (9.2E)"
PRECISION_RULE = "must be a Kubernetes quantity no finer than 1n (1e-9)"


class QuantityError(ValueError):
    pass


def parse_quantity(text: str | int) -> Decimal:
    """Parse a quantity exactly; raise QuantityError naming the rule it breaks."""
    if text is None or isinstance(text, bool):
        raise QuantityError(QUANTITY_RULE)
    if isinstance(text, int) and abs(text) > MAX_MAGNITUDE:
        raise QuantityError(MAGNITUDE_RULE)  # before str(): huge ints cannot be printed
    text = str(text).strip()
    if len(text) > MAX_TEXT:
        raise QuantityError(TEXT_RULE)
    match = _PATTERN.match(text)
    if not match:
        raise QuantityError(QUANTITY_RULE)
    number, suffix = match["number"], match["suffix"] or ""
    if sum(c.isdigit() for c in number) > MAX_DIGITS:
        raise QuantityError(DIGITS_RULE)
    with localcontext(prec=2 * MAX_TEXT):  # exact: 30 digits times at most 2**63
        return _bounded(Decimal(number) * _multiplier(suffix))


def _multiplier(suffix: str) -> Decimal:
    if suffix in _BINARY:
        return Decimal(_BINARY[suffix])
    if suffix in _DECIMAL:
        return _DECIMAL[suffix]
    exponent = int(suffix[1:])  # at most MAX_TEXT digits: always printable
    if not MIN_EXPONENT <= exponent <= MAX_EXPONENT:
        raise QuantityError(EXPONENT_RULE)
    return Decimal(10) ** exponent


def _bounded(value: Decimal) -> Decimal:
    if abs(value) > MAX_MAGNITUDE:
        raise QuantityError(MAGNITUDE_RULE)
    if value % SMALLEST:
        raise QuantityError(PRECISION_RULE)
    return value


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
