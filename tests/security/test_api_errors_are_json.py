"""Every error the API answers is JSON with ``code``, ``field`` and ``detail``, whoever
raised it (a service, DRF, Django's URL resolver, the body limit, an unhandled bug);
pages keep Django's HTML error pages."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from apps.accounts.services import issue_api_token
from tests.security.error_urls import Broken

BROKEN_URLS = "tests.security.error_urls"


def signed_in(user, **options) -> Client:
    client = Client(**options)
    client.force_login(user)
    return client


def assert_api_error(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert {"code", "field", "detail"} <= set(body), body
    assert body["code"] == code, body
    assert isinstance(body["detail"], str) and body["detail"], body
    return body


def assert_html(response, status: int) -> None:
    assert response.status_code == status
    assert response["Content-Type"].startswith("text/html")


@pytest.mark.parametrize(
    ("method", "url", "status", "code"),
    [
        ("get", "/api/v1/no-such-endpoint/", 404, "not_found"),
        ("get", "/api/nothing", 404, "not_found"),
        ("get", "/api/v1/cohorts/no-such-cohort/", 404, "not_found"),
        ("delete", "/api/v1/cohorts/research/", 405, "method_not_allowed"),
        ("post", "/api/v1/cohorts/", 403, "forbidden"),
    ],
)
def test_refusals_have_the_error_shape(scientist, method, url, status, code):
    response = getattr(signed_in(scientist), method)(url)
    body = assert_api_error(response, status, code)
    assert body["field"] is None


def test_anonymous_callers_are_told_to_authenticate(catalog):
    assert_api_error(Client().get("/api/v1/cohorts/"), 401, "not_authenticated")


def test_an_unknown_page_keeps_the_html_404(scientist):
    assert_html(signed_in(scientist).get("/no-such-page/"), 404)


def test_a_body_that_is_not_json_is_a_parse_error(admin):
    response = signed_in(admin).post(
        "/api/v1/cohorts/", "{not json", content_type="application/json"
    )
    assert_api_error(response, 400, "parse_error")


def test_an_unsupported_media_type_is_415(admin):
    response = signed_in(admin).post("/api/v1/cohorts/", "name=x", content_type="text/plain")
    assert_api_error(response, 415, "unsupported_media_type")


def test_an_oversized_body_is_413_and_nothing_is_written(admin, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1024
    body = json.dumps({"name": "huge", "description": "x" * 2048})
    response = signed_in(admin).post("/api/v1/cohorts/", body, content_type="application/json")
    assert_api_error(response, 413, "too_large")
    assert signed_in(admin).get("/api/v1/cohorts/huge/").status_code == 404


def test_an_oversized_form_on_a_page_keeps_an_html_error(scientist, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1024
    response = signed_in(scientist).post("/notifications/", {"webhook_url": "x" * 2048})
    assert_html(response, 400)


def test_too_many_form_fields_is_a_json_400(admin, settings):
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 10
    fields = "&".join(f"f{i}=1" for i in range(20))
    response = signed_in(admin).post(
        "/api/v1/cohorts/", fields, content_type="application/x-www-form-urlencoded"
    )
    assert_api_error(response, 400, "bad_request")


def test_validation_names_the_first_field_and_lists_them_all(admin):
    response = signed_in(admin).post(
        "/api/v1/priority-tiers/", {"value": "high"}, content_type="application/json"
    )
    body = assert_api_error(response, 400, "invalid")
    assert set(body["errors"]) == {"name", "value"}
    assert body["field"] in body["errors"]
    assert body["detail"].startswith(f"{body['field']}: ")


def test_too_many_requests_is_429_with_retry_after(scientist, settings, throttle_clock):
    settings.API_RATE_USER = "2/min"
    client = signed_in(scientist)
    responses = [client.get("/api/v1/cohorts/") for _ in range(3)]
    assert [r.status_code for r in responses[:2]] == [200, 200]
    assert_api_error(responses[2], 429, "throttled")
    assert int(responses[2]["Retry-After"]) > 0


def test_a_failed_csrf_check_on_the_api_is_json(queue, lead):
    client = signed_in(lead, enforce_csrf_checks=True)
    response = client.post(
        f"/api/v1/queues/{queue.pk}/preview/", {"version": 1}, content_type="application/json"
    )
    body = assert_api_error(response, 403, "forbidden")
    assert "CSRF" in body["detail"]


def test_a_bug_in_an_api_view_is_a_json_500_with_the_request_id(scientist, settings):
    settings.ROOT_URLCONF = BROKEN_URLS
    response = signed_in(scientist, raise_request_exception=False).get("/api/v1/broken/")
    body = assert_api_error(response, 500, "server_error")
    assert body["request_id"] == response["X-Request-ID"]
    assert Broken.__name__ not in body["detail"]  # nothing of the bug's insides


def test_a_bug_in_a_page_keeps_the_html_500(scientist, settings):
    settings.ROOT_URLCONF = BROKEN_URLS
    response = signed_in(scientist, raise_request_exception=False).get("/broken/")
    assert_html(response, 500)


def test_nested_fields_are_named_by_their_path(queue, admin):
    body = {"version": queue.version, "quotas": [{"flavor": "h100", "resource": "nvidia.com/gpu"}]}
    response = signed_in(admin).put(
        f"/api/v1/queues/{queue.pk}/", body, content_type="application/json"
    )
    body = assert_api_error(response, 400, "invalid")
    assert body["field"] == "quotas[0].nominal"
    assert list(body["errors"]) == ["quotas[0].nominal"]


# --- with DEBUG on (``make run``), and for token clients on any path -----------------


@pytest.fixture(params=[False, True], ids=["production", "debug"])
def debug(request, settings):
    settings.DEBUG = request.param
    return request.param


def with_token(user) -> Client:
    raw = issue_api_token(user, "script", actor=user)[1]
    return Client(HTTP_AUTHORIZATION=f"Token {raw}", raise_request_exception=False)


def test_an_unknown_api_url_is_json_with_debug_on_too(scientist, debug):
    assert_api_error(signed_in(scientist).get("/api/v1/no-such-endpoint/"), 404, "not_found")


def test_a_bug_in_an_api_view_is_json_with_debug_on_too(scientist, settings, debug):
    settings.ROOT_URLCONF = BROKEN_URLS
    response = signed_in(scientist, raise_request_exception=False).get("/api/v1/broken/")
    assert assert_api_error(response, 500, "server_error")["request_id"]


def test_a_bug_in_a_page_keeps_the_debug_page(scientist, settings):
    settings.ROOT_URLCONF, settings.DEBUG = BROKEN_URLS, True
    response = signed_in(scientist, raise_request_exception=False).get("/broken/")
    assert_html(response, 500)
    assert Broken.__name__ in response.content.decode()  # the developer's traceback


def test_a_token_client_asking_for_a_missing_report_gets_json(scientist, debug):
    response = with_token(scientist).get("/reports/2026-W01/report.json")
    assert_api_error(response, 404, "not_found")


def test_a_token_client_on_an_unknown_page_gets_json(scientist, debug):
    assert_api_error(with_token(scientist).get("/no-such-page/"), 404, "not_found")


@pytest.mark.parametrize(
    ("method", "url"),
    [
        ("get", "/api/v1/cohorts/research.json"),
        ("post", "/api/v1/cohorts.json"),
        ("patch", "/api/v1/queues/1.json"),
        ("get", "/api/v1/teams/vision/envelope.json"),
        ("get", "/api/v1/audit/export.json"),
        ("get", "/api/v1/reports/2026-W49.json"),
        ("get", "/api/v1/reports/trend.json"),
        ("post", "/api/v1/whatif/999/apply.json"),
    ],
)
def test_a_format_suffix_is_an_unknown_url(admin, team, debug, method, url):
    response = getattr(signed_in(admin), method)(url, {}, content_type="application/json")
    assert_api_error(response, 404, "not_found")


def test_a_write_to_a_url_missing_its_slash_is_a_404_not_a_redirect(catalog, debug):
    # The slashed URL exists; Django's APPEND_SLASH cannot redirect a POST (a 500 with
    # DEBUG on, a body silently dropped without).
    response = signed_in(catalog).post("/api/v1/cohorts", {}, content_type="application/json")
    assert_api_error(response, 404, "not_found")
    assert signed_in(catalog).get("/api/v1/cohorts")["Location"] == "/api/v1/cohorts/"


def test_an_error_another_renderer_would_draw_is_json(scientist):
    response = signed_in(scientist).put("/api/schema/")
    body = assert_api_error(response, 405, "method_not_allowed")
    assert body["detail"] == "PUT is not allowed here"
    assert "GET" in response["Allow"]


# --- a token client on a page: JSON whatever went wrong, never HTML ------------------


def with_scheme(user, scheme: str) -> Client:
    raw = issue_api_token(user, "script", actor=user)[1]
    return Client(HTTP_AUTHORIZATION=f"{scheme} {raw}", raise_request_exception=False)


@pytest.mark.parametrize("scheme", ["Token", "Bearer"])
def test_a_token_client_on_a_report_page_that_does_not_exist_gets_json(scientist, debug, scheme):
    # Pages take a signed-in session: a token is told so, not sent to the login form.
    response = with_scheme(scientist, scheme).get("/reports/1999-W01/")
    body = assert_api_error(response, 401, "not_authenticated")
    assert body["detail"].startswith("/reports/1999-W01/ is a page for a signed-in browser")


def test_a_bad_token_on_a_page_is_a_json_401(db, debug):
    client = Client(HTTP_AUTHORIZATION="Bearer not-a-token", raise_request_exception=False)
    assert_api_error(client.get("/reports/"), 401, "not_authenticated")


def test_a_token_client_using_the_wrong_method_on_a_page_gets_json(scientist, debug):
    response = with_scheme(scientist, "Bearer").get("/logout/")
    assert_api_error(response, 405, "method_not_allowed")


def test_a_token_client_sending_an_oversized_form_to_a_page_gets_json(scientist, settings, debug):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1024
    response = with_scheme(scientist, "Token").post("/notifications/", {"url": "x" * 2048})
    assert response["Content-Type"] == "application/json"
    assert response.status_code in (400, 413)


@pytest.mark.parametrize("url", ["/reports/1999-W01/", "/admin/"])
def test_a_browser_on_a_page_is_still_sent_to_the_login_form(db, debug, url):
    response = Client().get(url)
    assert response.status_code == 302
    assert "login/?next=" in response["Location"]


def test_a_token_client_on_the_django_admin_gets_json(scientist, debug):
    assert_api_error(with_scheme(scientist, "Token").get("/admin/"), 401, "not_authenticated")
