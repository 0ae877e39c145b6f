"""Refuse NUL characters anywhere in a request, once, before any view sees it.

PostgreSQL cannot store or compare a string holding NUL (0x00): a path argument, a query
filter, a form field or a JSON value carrying one became a 500 wherever a view forgot to
check. Nothing a person types contains NUL, so the whole request is refused with 400
naming where the character was; nothing is written.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from urllib.parse import parse_qsl

from django.http import HttpRequest, HttpResponse
from django.http.multipartparser import MultiPartParserError

from portal.http_errors import FORM_TYPES, refuse_input

NUL = "\x00"
RULE = "must not contain NUL characters"


class RefuseNulMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        where = nul_location(request)
        if where is None:
            return self.get_response(request)
        return refuse_input(request, where, RULE)


def nul_location(request: HttpRequest) -> str | None:
    """Where the first NUL is (``path``, a query or body field name), or None."""
    if NUL in request.path:
        return "path"
    query = request.META.get("QUERY_STRING", "")
    if "%00" in query or NUL in query:
        found = _first_pair_with_nul(parse_qsl(query, keep_blank_values=True))
        if found is not None:
            return found
    return _body_location(request)


def _body_location(request: HttpRequest) -> str | None:
    if request.method in ("GET", "HEAD", "OPTIONS") or not request.META.get("CONTENT_LENGTH"):
        return None
    content_type = request.content_type or ""
    if content_type in FORM_TYPES:
        try:
            fields = request.POST
        except MultiPartParserError:
            return None  # unreadable: the view sees an empty form, as before
        return _first_pair_with_nul(
            (key, value) for key, values in fields.lists() for value in values
        )
    body = request.body
    if b"\x00" not in body and b"\\u0000" not in body:
        return None
    try:
        document = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        # Not JSON: the parser will refuse it; a raw NUL still names the body.
        return "body" if b"\x00" in body else None
    return next(_json_paths_with_nul(document, ""), None)


def _first_pair_with_nul(pairs) -> str | None:
    for key, value in pairs:
        if NUL in key or NUL in value:
            return key.replace(NUL, "") or "query"
    return None


def _json_paths_with_nul(value, path: str) -> Iterator[str]:
    if isinstance(value, str):
        if NUL in value:
            yield path or "body"
    elif isinstance(value, dict):
        for key, inner in value.items():
            child = f"{path}.{key}" if path else str(key)
            if NUL in key:
                yield child.replace(NUL, "")
            yield from _json_paths_with_nul(inner, child)
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from _json_paths_with_nul(inner, f"{path}[{index}]")
