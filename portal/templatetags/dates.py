"""``{{ value|when }}`` and ``{{ value|when:"seconds" }}`` for people; ``{{ value|iso }}``
(``2026-12-04T14:23:05Z``) for machine-read attributes. See ``core.dates``.

A builtin of the template engine (``TEMPLATES`` in settings), so no template loads it.
"""

import re

from django import template

from core.dates import format_when, iso_z

register = template.Library()
ISO_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d")


@register.filter
def when(value, precision: str = "minutes") -> str:
    return format_when(value, seconds=precision == "seconds")


@register.filter
def iso(value) -> str:
    return iso_z(value) or ""


@register.filter
def shown(value):
    """An audited value as it is, unless it is a time (``2026-12-04T14:23:05Z``): then as
    ``|when`` shows times. Audit details keep times in the API's form."""
    if isinstance(value, str) and ISO_TIME.match(value):
        return format_when(value, seconds=True)
    return value
