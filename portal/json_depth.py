"""Refuse a JSON body nested deeper than any real request, before anything parses it.

Python's ``json`` parser recurses once per level: a body of a few thousand ``[`` ran
it out of stack (``RecursionError``, a 500), for anonymous callers too, since bodies
are read before authentication (``portal.nul_guard``) and by DRF's parser. The deepest
body the API takes is a few levels (a quota list of objects); 64 is far beyond it.
The body is scanned without recursion, brackets inside strings ignored.
"""

from __future__ import annotations

import re

from django.http import HttpRequest, HttpResponse

from portal.http_errors import FORM_TYPES, refuse_input

MAX_DEPTH = 64
FIELD = "body"
RULE = (
    f"must not nest arrays and objects more than {MAX_DEPTH} levels deep "
    '(e.g. {"a": [1]} is 2 levels)'
)
# A string, escapes included; the closing quote is optional so that an unterminated
# string ends the scan in one pass instead of being retried from every later quote.
STRING = re.compile(rb'"(?:[^"\\]+|\\.)*"?', re.DOTALL)
BRACKET = re.compile(rb"[\[\]{}]")
OPENERS = (b"[", b"{")


class RefuseDeepJsonMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if _is_too_deep(request):
            return refuse_input(request, FIELD, RULE)
        return self.get_response(request)


def _is_too_deep(request: HttpRequest) -> bool:
    if not request.META.get("CONTENT_LENGTH") or request.content_type in FORM_TYPES:
        return False
    return nesting_exceeds(request.body, MAX_DEPTH)


def nesting_exceeds(document: bytes, limit: int) -> bool:
    """Whether arrays and objects in ``document`` (JSON or not) nest deeper than ``limit``."""
    if document.count(b"[") + document.count(b"{") <= limit:
        return False  # too few openers to nest that deep: most bodies stop here
    depth = 0
    for bracket in BRACKET.finditer(STRING.sub(b"", document)):
        depth += 1 if bracket[0] in OPENERS else -1
        if depth > limit:
            return True
    return False
