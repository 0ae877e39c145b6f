"""``{{ value|when }}`` and ``{{ value|when:"seconds" }}``: see ``core.dates``.

A builtin of the template engine (``TEMPLATES`` in settings), so no template loads it.
"""

from django import template

from core.dates import format_when

register = template.Library()


@register.filter
def when(value, precision: str = "minutes") -> str:
    return format_when(value, seconds=precision == "seconds")
