"""``{{ seconds|duration }}``, ``{{ bytes|binary_bytes }}``, ``{{ usd|money }}``: see
``core.units``. Each carries its exact value in a tooltip (``title``).

A builtin of the template engine (``TEMPLATES`` in settings), so no template loads it.
"""

from django import template
from django.utils.html import format_html

from core import units

register = template.Library()


@register.filter
def duration(seconds) -> str:
    if seconds is None or seconds == "":
        return units.NOTHING
    return format_html(
        '<span title="{}">{}</span>', units.exact_duration(seconds), units.human_duration(seconds)
    )


@register.filter
def binary_bytes(count) -> str:
    if count is None or count == "":
        return units.NOTHING
    return format_html(
        '<span title="{}">{}</span>', units.exact_bytes(count), units.human_bytes(count)
    )


@register.filter
def money(usd) -> str:
    if usd is None or usd == "":
        return units.NOTHING
    return format_html('<span title="{}">{}</span>', units.exact_money(usd), units.human_money(usd))
