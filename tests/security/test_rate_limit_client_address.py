"""The anonymous API rate limit counts the real client: a made-up X-Forwarded-For from an
untrusted peer buys no fresh quota, while clients behind a trusted proxy count apart."""

import pytest
from rest_framework.test import APIClient

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("throttle_clock")]

# The schema is the API's one endpoint open to anonymous clients.
PUBLIC = "/api/schema/"


def status(**request) -> int:
    return APIClient().get(PUBLIC, **request).status_code


def test_a_spoofed_forwarded_for_does_not_escape_the_anonymous_limit(settings):
    settings.API_RATE_ANON = "2/min"
    codes = [status(HTTP_X_FORWARDED_FOR=f"203.0.113.{n}") for n in range(3)]
    assert codes == [200, 200, 429]


def test_clients_behind_a_trusted_proxy_have_a_limit_each(settings):
    settings.API_RATE_ANON = "1/min"
    settings.QM_TRUSTED_PROXIES = ["127.0.0.0/8"]
    assert status(HTTP_X_FORWARDED_FOR="203.0.113.1") == 200
    assert status(HTTP_X_FORWARDED_FOR="203.0.113.1") == 429
    assert status(HTTP_X_FORWARDED_FOR="1.2.3.4, 203.0.113.1") == 429  # the spoof is left of it
    assert status(HTTP_X_FORWARDED_FOR="203.0.113.2") == 200


def test_an_ipv6_host_gets_one_limit_for_its_whole_64(settings):
    settings.API_RATE_ANON = "2/min"
    codes = [status(REMOTE_ADDR=f"2001:db8:7:7::{n + 1}") for n in range(3)]
    assert codes == [200, 200, 429]
    assert status(REMOTE_ADDR="2001:db8:7:8::1") == 200
