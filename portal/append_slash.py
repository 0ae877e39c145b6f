"""Django's ``CommonMiddleware``, redirecting to the slashed URL only for reads."""

from __future__ import annotations

from django.http import HttpRequest
from django.middleware.common import CommonMiddleware

READS = ("GET", "HEAD")


class ReadsOnlyAppendSlashMiddleware(CommonMiddleware):
    """``APPEND_SLASH`` for GET and HEAD; any other method to a URL missing its slash
    is a 404.

    A write cannot be redirected: with ``DEBUG`` Django raises ``RuntimeError`` (a 500
    for ``POST /live/workloads/ns/a.json``, whose slashed form is a URL), and in
    production clients follow a 301 with a GET, dropping the body without a word.
    """

    def should_redirect_with_slash(self, request: HttpRequest) -> bool:
        return request.method in READS and super().should_redirect_with_slash(request)
