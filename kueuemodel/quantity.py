"""Kubernetes resource quantities ("8", "500m", "64Gi", "1e3"): the one parser.

Readings of the same text, sharing one scanner and one set of bounds:

- ``quantity_value`` — the value as a ``Decimal``, as the API server reads it.
- ``parse_units`` — the exact value in whole units as a ``Decimal``, for quantities people and
  clients type (quota edits, capacities, envelopes). Finer than 1n is a rule broken.
- ``parse_milli`` — integer milli-units, rounded up like Kubernetes'
  ``Quantity.MilliValue``: what the admission model counts with, so quota
  arithmetic stays exact and fast.

Both are bounded (text length, digits, exponent, magnitude), so "1e9999999" or a
71-digit number is a ``QuantityError`` naming the rule, never ``decimal.Overflow``,
an unprintable integer or minutes of arithmetic.
"""

from __future__ import annotations

import re
from decimal import ROUND_CEILING, Decimal, localcontext
from functools import lru_cache

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
# The portal stores quantities in CharField(max_length=64) columns.
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

_BINARY_SUFFIXES = ("Ei", "Pi", "Ti", "Gi", "Mi", "Ki")


class QuantityError(ValueError):
    """The text is not a quantity, or breaks one of the bounds; the message is the rule."""


def parse_units(value: str | int | float) -> Decimal:
    """The exact value of ``value``; raise QuantityError naming the rule it breaks."""
    amount = quantity_value(value)
    if amount % SMALLEST:
        raise QuantityError(PRECISION_RULE)
    return amount


def parse_milli(value: str | int | float) -> int:
    """``value`` in milli-units, rounded up like ``Quantity.MilliValue``."""
    if isinstance(value, int) and not isinstance(value, bool):
        return int(quantity_value(value)) * 1000
    return _milli(str(value).strip())


@lru_cache(maxsize=4096)
def _milli(text: str) -> int:
    # The same few quantities ("1", "8", "64Gi") come up for every pod of every workload.
    return int((quantity_value(text) * 1000).to_integral_value(rounding=ROUND_CEILING))


def quantity_value(value: str | int | float) -> Decimal:
    """The value of ``value`` as Kubernetes reads it, within the bounds; no rounding."""
    if value is None or isinstance(value, bool):
        raise QuantityError(QUANTITY_RULE)
    if isinstance(value, int) and abs(value) > MAX_MAGNITUDE:
        raise QuantityError(MAGNITUDE_RULE)  # before str(): huge ints cannot be printed
    text = str(value).strip()
    if len(text) > MAX_TEXT:
        raise QuantityError(TEXT_RULE)
    match = _PATTERN.match(text)
    if not match:
        raise QuantityError(QUANTITY_RULE)
    number, suffix = match["number"], match["suffix"] or ""
    if sum(c.isdigit() for c in number) > MAX_DIGITS:
        raise QuantityError(DIGITS_RULE)
    with localcontext(prec=2 * MAX_TEXT):  # exact: 30 digits times at most 2**63
        amount = Decimal(number) * _multiplier(suffix)
    if abs(amount) > MAX_MAGNITUDE:
        raise QuantityError(MAGNITUDE_RULE)
    return amount


def _multiplier(suffix: str) -> Decimal:
    if suffix in _BINARY:
        return Decimal(_BINARY[suffix])
    if suffix in _DECIMAL:
        return _DECIMAL[suffix]
    exponent = int(suffix[1:])  # at most MAX_TEXT digits: always printable
    if not MIN_EXPONENT <= exponent <= MAX_EXPONENT:
        raise QuantityError(EXPONENT_RULE)
    return Decimal(10) ** exponent


def is_binary_resource(resource: str) -> bool:
    """Memory-like resources read best with binary suffixes (``64Gi``)."""
    return resource in ("memory", "ephemeral-storage", "storage") or resource.startswith(
        "hugepages-"
    )


def format_milli(milli: int, resource: str = "") -> str:
    """Render milli-units the way ``kubectl`` prints a canonical quantity."""
    if milli % 1000:
        return f"{milli}m"
    whole = milli // 1000
    if whole and is_binary_resource(resource):
        for index, suffix in enumerate(_BINARY_SUFFIXES):
            step = 2 ** (10 * (len(_BINARY_SUFFIXES) - index))
            if whole % step == 0:
                return f"{whole // step}{suffix}"
    return str(whole)
