"""A request id per HTTP request: taken from X-Request-ID when a proxy sets a sane one,
else generated; echoed in the response and attached to every log line."""

import re
import uuid
from contextvars import ContextVar

from django.http import HttpRequest, HttpResponse

_request_id: ContextVar[str] = ContextVar("request_id", default="-")
HEADER = "X-Request-ID"
ACCEPTABLE = re.compile(r"^[A-Za-z0-9._-]{1,128}$")


def current_request_id() -> str:
    return _request_id.get()


class RequestIdMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        incoming = request.headers.get(HEADER, "")
        request_id = incoming if ACCEPTABLE.match(incoming) else uuid.uuid4().hex
        token = _request_id.set(request_id)
        try:
            response = self.get_response(request)
        finally:
            _request_id.reset(token)
        response[HEADER] = request_id
        return response
