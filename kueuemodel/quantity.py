"""Kubernetes resource quantities as exact integer milli-units.

Every amount inside the engine is an ``int`` counting thousandths of the base
unit (millicores, milli-bytes, milli-GPUs). Integers keep quota arithmetic exact
and fast; the API server rounds up to milli precision in the same way.
"""

from __future__ import annotations

import re
from decimal import ROUND_CEILING, Decimal, InvalidOperation
from functools import lru_cache

_SUFFIXES: dict[str, Decimal] = {
    "": Decimal(1),
    "n": Decimal("1e-9"),
    "u": Decimal("1e-6"),
    "m": Decimal("1e-3"),
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
_BINARY = ("Ei", "Pi", "Ti", "Gi", "Mi", "Ki")
_PATTERN = re.compile(
    r"^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]))?$"
)


class QuantityError(ValueError):
    """Raised for strings that are not Kubernetes quantities."""


def parse_quantity(value: str | int | float) -> int:
    """Return ``value`` in milli-units, rounded up like ``Quantity.MilliValue``."""
    if isinstance(value, bool):
        raise QuantityError(f"not a quantity: {value!r}")
    if isinstance(value, int):
        return value * 1000
    return _parse_text(str(value).strip())


@lru_cache(maxsize=4096)
def _parse_text(value: str) -> int:
    # The same few quantities ("1", "8", "64Gi") come up for every pod of every workload.
    match = _PATTERN.match(value)
    if not match:
        raise QuantityError(f"not a quantity: {value!r}")
    number, exponent, suffix = match.groups()
    try:
        amount = Decimal(number) * (
            Decimal("1" + exponent) if exponent else _SUFFIXES[suffix or ""]
        )
    except InvalidOperation as exc:
        raise QuantityError(f"not a quantity: {value!r}") from exc
    return int((amount * 1000).to_integral_value(rounding=ROUND_CEILING))


def is_binary_resource(resource: str) -> bool:
    """Memory-like resources read best with binary suffixes (``64Gi``)."""
    return resource in ("memory", "ephemeral-storage", "storage") or resource.startswith(
        "hugepages-"
    )


def format_quantity(milli: int, resource: str = "") -> str:
    """Render milli-units the way ``kubectl`` prints a canonical quantity."""
    if milli % 1000:
        return f"{milli}m"
    whole = milli // 1000
    if whole and is_binary_resource(resource):
        for index, suffix in enumerate(_BINARY):
            step = 2 ** (10 * (len(_BINARY) - index))
            if whole % step == 0:
                return f"{whole // step}{suffix}"
    return str(whole)
