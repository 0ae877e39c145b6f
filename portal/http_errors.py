"""Errors Django answers itself, outside DRF's exception handler: JSON of the API's
shape (``core.api_errors``) for paths under ``/api/``, Django's HTML pages elsewhere.

Wired in ``portal.urls`` (handler400/403/404/500), ``CSRF_FAILURE_VIEW`` and the
``ApiBodyLimitMiddleware`` in settings.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import csrf, defaults

from core.api_errors import error_body
from portal.request_id import current_request_id

API_PREFIX = "/api/"


def is_api(request: HttpRequest) -> bool:
    return request.path.startswith(API_PREFIX)


def too_large_body() -> dict:
    return error_body("too_large", "the request body is larger than the server accepts")


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    if not is_api(request):
        return defaults.bad_request(request, exception)
    if isinstance(exception, RequestDataTooBig):
        # A form body read past the limit (a JSON body is refused by the middleware).
        return JsonResponse(too_large_body(), status=413)
    return JsonResponse(error_body("bad_request", "the request could not be read"), status=400)


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    if not is_api(request):
        return defaults.permission_denied(request, exception)
    body = error_body("forbidden", "you may not do this")
    return JsonResponse(body, status=403)


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if not is_api(request):
        return defaults.page_not_found(request, exception)
    body = error_body("not_found", f"no API endpoint at {request.path}")
    return JsonResponse(body, status=404)


def server_error(request: HttpRequest) -> HttpResponse:
    if not is_api(request):
        return defaults.server_error(request)
    request_id = current_request_id()
    body = error_body(
        "server_error",
        f"something went wrong on our side; quote request id {request_id} when reporting it",
        request_id=request_id,
    )
    return JsonResponse(body, status=500)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    if not is_api(request):
        return csrf.csrf_failure(request, reason)
    return JsonResponse(error_body("forbidden", f"CSRF check failed: {reason}"), status=403)


class ApiBodyLimitMiddleware:
    """Refuse an API body above ``DATA_UPLOAD_MAX_MEMORY_SIZE`` with 413 before it is read.

    Django checks that limit only when ``request.body`` or a form is read; DRF's JSON
    parser reads the stream directly, so without this an API body had no limit at all.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        if is_api(request) and limit is not None and _declared_length(request) > limit:
            return JsonResponse(too_large_body(), status=413)
        return self.get_response(request)


def _declared_length(request: HttpRequest) -> int:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0
