"""The portal's URL conf plus two views that fail, to see how a 500 is answered.

Test-only: used with ``override_settings(ROOT_URLCONF=...)``. Nothing of ours is
replaced; the error handlers are the portal's own.
"""

from __future__ import annotations

from django.urls import path
from rest_framework.decorators import api_view

from portal.urls import handler400, handler403, handler404, handler500  # noqa: F401
from portal.urls import urlpatterns as portal_urlpatterns


class Broken(Exception):
    """A bug, as far as the portal can tell."""


@api_view(["GET"])
def broken_endpoint(request):
    raise Broken("an API view failed")


def broken_page(request):
    raise Broken("a page failed")


urlpatterns = [
    path("api/v1/broken/", broken_endpoint),
    path("broken/", broken_page),
    *portal_urlpatterns,
]
