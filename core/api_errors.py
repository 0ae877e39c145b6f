"""Turn errors into API responses in one place, all of one shape.

Every error body is ``{"code", "field", "detail"}``: ``code`` for programs, ``field``
the input at fault (or null), ``detail`` for people. Any ``core.errors.DomainError`` a
service raises becomes that body with the error's status; so do DRF's and Django's own
errors. Some codes add keys:

- ``invalid`` (400): ``errors`` maps every bad field path (``quotas[2].nominal``) to
  its messages; ``field`` is the first of them.
- ``unknown_field`` (400): the body has a field the endpoint does not declare;
  ``field`` is its path (see ``core.strict_input``).
- ``conflict`` (409): ``current_version`` and ``changes_since_your_version``.
- ``server_error`` (500): ``request_id``, to quote when reporting it.

A cluster that cannot be reached (or refuses us) answers 503 ``cluster_unavailable``
naming what failed, never a 500: an exception from outside the domain joins it by
offering ``as_domain_error()`` (``core.kube.KubeError`` does). Errors Django raises
before or around DRF (unknown URLs, oversized bodies, unhandled exceptions) get the same
shape from ``portal.http_errors``.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import Http404
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from core.errors import NON_FIELD, DomainError, InvalidInput
from core.strict_input import UNKNOWN_FIELD, first_unknown_field

# DRF's own codes, except where our vocabulary already has a word for it.
RENAMED_DRF_CODES = {"permission_denied": "forbidden"}


def error_body(code: str, detail: str, field: str | None = None, **extra: Any) -> dict:
    return {"code": code, "field": field, "detail": detail, **extra}


def domain_body(exc: DomainError) -> dict:
    return error_body(exc.code, exc.detail, exc.field, **exc.extra())


def field_errors(detail: Any, path: str = "") -> dict[str, list[str]]:
    """DRF's nested error detail flattened to ``{"quotas[0].nominal": [messages]}``."""
    if isinstance(detail, list) and any(isinstance(item, dict | list) for item in detail):
        detail = dict(enumerate(detail))
    if isinstance(detail, dict):
        found: dict[str, list[str]] = {}
        for key, inner in detail.items():
            found.update(field_errors(inner, _child_path(path, key)))
        return found
    messages = [str(m) for m in (detail if isinstance(detail, list) else [detail])]
    return {path or NON_FIELD: messages} if messages else {}


def _child_path(path: str, key: str | int) -> str:
    # List items come as positions (a list, or a dict keyed by index in newer DRF).
    if isinstance(key, int):
        return f"{path}[{key}]"
    if key == NON_FIELD:
        return path
    return f"{path}.{key}" if path else key


def exception_handler(exc: Exception, context: dict) -> Response | None:
    domain = _domain_response(exc)
    if domain is not None:
        return domain
    exc = _as_api_exception(exc)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None  # unhandled: Django's handler500 answers (see portal.http_errors)
    if isinstance(exc, exceptions.ValidationError):
        response.data = _validation_body(exc.detail)
    else:
        response.data = _drf_body(exc, response.data)
    return response


def _validation_body(detail: Any) -> dict:
    unknown = first_unknown_field(detail)
    if unknown is not None:
        return error_body(UNKNOWN_FIELD, f"{unknown}: unknown field", unknown)
    return domain_body(InvalidInput(field_errors(detail)))


def _domain_response(exc: Exception) -> Response | None:
    translate = getattr(exc, "as_domain_error", None)
    if callable(translate):
        exc = translate()
    if isinstance(exc, DomainError):
        return Response(domain_body(exc), status=exc.status)
    return None


def _as_api_exception(exc: Exception) -> Exception:
    # As DRF's handler does, but here too, so the body can name DRF's code.
    if isinstance(exc, Http404):
        return exceptions.NotFound(*exc.args)
    if isinstance(exc, PermissionDenied):
        return exceptions.PermissionDenied(*exc.args)
    return exc


def _drf_body(exc: exceptions.APIException, data: Any) -> dict:
    """Not found, method not allowed, unsupported media type, throttled, …"""
    code = exc.get_codes()
    if not isinstance(code, str):
        code = exc.default_code
    detail = data.get("detail", data) if isinstance(data, dict) else data
    return error_body(RENAMED_DRF_CODES.get(code, code), str(detail))
