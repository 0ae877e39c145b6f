"""The usage page's range form: it only shows the choice and its errors; the parsing
and its rules are ``ranges.parse_range``, shared with the API."""

from __future__ import annotations

from django import forms

from apps.reports.ranges import CUSTOM, PRESETS


class RangeForm(forms.Form):
    range = forms.ChoiceField(
        choices=[*((name, name) for name in PRESETS), (CUSTOM, "custom")], required=False
    )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # ``from`` is a Python keyword: the two times are declared here, not as attributes.
        for name in ("from", "to"):
            self.fields[name] = forms.CharField(
                required=False,
                help_text="UTC, e.g. 2026-11-16T09:00",
                widget=forms.DateTimeInput(attrs={"type": "datetime-local"}),
            )
