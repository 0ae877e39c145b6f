"""Errors Django answers itself, outside DRF's exception handler: JSON of the API's
shape (``core.api_errors``) for API clients (paths under ``/api/``, and token clients
anywhere), Django's HTML pages for browsers.

Wired in ``portal.urls`` (handler400/403/404/500), ``CSRF_FAILURE_VIEW`` and two
middlewares in settings: ``ApiBodyLimitMiddleware`` and ``JsonErrorsMiddleware``, which
catches the errors no handler sees (Django's debug pages, a bare 405, another
renderer's error).
"""

from __future__ import annotations

from http.client import responses
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse
from django.shortcuts import resolve_url
from django.views import csrf, defaults

from apps.accounts.authentication import SCHEMES
from core.api_errors import domain_body, error_body
from core.errors import InvalidInput
from portal.request_id import current_request_id

API_PREFIX = "/api/"
JSON = "application/json"
# Codes of the API's vocabulary for the statuses Django answers on its own.
CODES = {
    400: "bad_request",
    401: "not_authenticated",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "too_large",
    429: "throttled",
    500: "server_error",
}
# Bodies read as form pairs; any other body may be read as JSON by someone.
FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")
# Response headers an error keeps when its body is replaced.
KEPT_HEADERS = ("Allow", "WWW-Authenticate", "Retry-After")
ADMIN_LOGIN = "/admin/login/"  # where the Django admin sends whoever is not staff


def is_api(request: HttpRequest) -> bool:
    """Whether errors are answered as JSON: an API path, or a token client (a script
    downloading a report) on any path."""
    if request.path.startswith(API_PREFIX):
        return True
    scheme = request.headers.get("Authorization", "").split(" ", 1)[0]
    return scheme.lower().encode() in SCHEMES


def too_large_body() -> dict:
    return error_body("too_large", "the request body is larger than the server accepts")


def refuse_input(request: HttpRequest, field: str, rule: str) -> HttpResponse:
    """400 for input refused at the edge, before any view ran: the API's body for API
    clients, one line of text for a browser (no page to put it on)."""
    if is_api(request):
        return JsonResponse(domain_body(InvalidInput.single(field, rule)), status=400)
    return HttpResponseBadRequest(
        f"{field}: {rule}. Nothing was saved.", content_type="text/plain; charset=utf-8"
    )


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
    return json_error(request, 404)


def server_error(request: HttpRequest) -> HttpResponse:
    if not is_api(request):
        return defaults.server_error(request)
    return json_error(request, 500)


def json_error(request: HttpRequest, status: int) -> JsonResponse:
    """The API's error body for a status Django (not a view) decided on."""
    if status == 500:
        request_id = current_request_id()
        body = error_body(
            "server_error",
            f"something went wrong on our side; quote request id {request_id} when reporting it",
            request_id=request_id,
        )
    elif status == 404:
        body = error_body("not_found", f"nothing at {request.path}")
    elif status == 405:
        body = error_body("method_not_allowed", f"{request.method} is not allowed here")
    else:
        code = CODES.get(status, "error")
        body = error_body(
            code, f"{responses.get(status, 'Error')} ({request.method} {request.path})"
        )
    return JsonResponse(body, status=status)


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


class JsonErrorsMiddleware:
    """Give an API client's error the API's shape when something else answered it.

    The handlers above cover Django's errors in production, but not Django's debug pages
    (``DEBUG``, as ``make run`` serves: an unknown URL or an exception is an HTML page),
    a view's bare 405, nor an error a non-JSON renderer drew (the schema view's). A
    script must never have to parse HTML to learn what went wrong. Logging is untouched:
    Django has logged the error by the time the response comes back here.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if is_api(request) and _is_login_redirect(response):
            return session_only(request)
        if response.status_code < 400 or not is_api(request) or _is_json(response):
            return response
        replaced = json_error(request, response.status_code)
        for header in KEPT_HEADERS:
            if header in response:
                replaced[header] = response[header]
        return replaced


def session_only(request: HttpRequest) -> JsonResponse:
    """401 for a token client on a page that takes a signed-in session only: a script
    following the login redirect would get an HTML form, whatever its token was."""
    detail = (
        f"{request.path} is a page for a signed-in browser and takes no API token; "
        "scripts use /api/v1/ and the report downloads (e.g. /reports/2026-W49/report.json)"
    )
    return JsonResponse(error_body("not_authenticated", detail), status=401)


def _is_login_redirect(response: HttpResponse) -> bool:
    if response.status_code not in (301, 302) or "Location" not in response:
        return False
    target = urlsplit(response["Location"]).path
    return target in (resolve_url(settings.LOGIN_URL), ADMIN_LOGIN)


def _is_json(response: HttpResponse) -> bool:
    return response.get("Content-Type", "").split(";")[0].strip() == JSON
