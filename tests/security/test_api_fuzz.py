"""Schemathesis drives every operation in /api/schema/ with generated (often
hostile) input, as a platform admin and as a scientist: no 5xx, ever.
Bounded: a few examples per operation, no deadline per example."""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error

from apps.accounts.services import issue_api_token

EXAMPLES_PER_OPERATION = 8


@pytest.fixture
def api_schema(db):
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    from portal.wsgi import application

    # As Django's test client does: the test's transaction must outlive each request.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield schemathesis.openapi.from_wsgi("/api/schema/", application)
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def tokens(queue, other_queue, lead, scientist, envelope, settings):
    settings.API_RATE_USER = "100000/min"  # the fuzzer is not what the throttle is for
    return {
        "admin": issue_api_token(_admin(), "fuzz", actor=None)[1],
        "scientist": issue_api_token(scientist, "fuzz", actor=scientist)[1],
    }


def _admin():
    from apps.accounts.models import User

    return User.objects.get(is_platform_admin=True)


def test_no_input_makes_the_api_fail(api_schema, tokens):
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) > 20
    calls: list[int] = []
    for operation in operations:
        _fuzz(operation, tokens, calls)
    assert len(calls) >= 2 * len(operations)
    assert any(200 <= code < 300 for code in calls)  # not only refusals


def _fuzz(operation, tokens: dict[str, str], calls: list[int]) -> None:
    @given(case=operation.as_strategy())
    @settings(
        max_examples=EXAMPLES_PER_OPERATION,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        derandomize=True,
        database=None,
    )
    def run(case) -> None:
        for token in tokens.values():
            response = case.call(headers={"Authorization": f"Token {token}"})
            calls.append(response.status_code)
            case.validate_response(response, checks=(not_a_server_error,))

    run()
