"""Schemathesis drives every operation in /api/schema/ as a platform admin and as a
scientist: with schema-valid input, with input that breaks the schema (negative
cases), and in stateful chains that follow the schema's OpenAPI links (create → read
→ update → delete, queue edit → change request → decide; see portal/api_schema.py).

No 5xx, ever; and every answer conforms to the schema (status, content type, body,
headers). Checks left off, and why:
- ``positive_data_acceptance``: a schema-valid body may still break a domain rule
  (an unknown team, a quota beyond capacity, a name that is taken); 400 is right.
- ``use_after_free``: deleting a notebook or job stops it; the record stays readable
  as history, so a later GET answering 200 is intended.
A body nested 5,000 levels deep, sent to every operation that takes one, is refused
with the schema's 400 naming the rule (``portal/json_depth.py``). The API has no
``.json`` suffix routes to drive (``core.api_router``).
Bounded: a constant number of examples per operation and of stateful scenarios; no
deadline per example.
"""

from __future__ import annotations

import pytest
import schemathesis
from django.db import transaction
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    ensure_resource_availability,
    negative_data_rejection,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from apps.accounts.services import issue_api_token
from testkit.factories import quota, set_policy
from testkit.notebooks import IMAGE

EXAMPLES_PER_OPERATION = 6
STATEFUL_SCENARIOS = 25
STEPS_PER_SCENARIO = 6
CONFORMANCE = (
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
)
HYPOTHESIS = {
    "deadline": None,
    "suppress_health_check": list(HealthCheck),
    "derandomize": True,
    "database": None,
    # No shrinking: a shrink replays steps against a database the first run changed, which
    # Hypothesis reports as a flaky strategy and hides the failure it was shrinking.
    "phases": [Phase.explicit, Phase.generate],
}


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


def test_valid_input_gets_answers_the_schema_describes(api_schema, tokens):
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) > 20
    calls: list[int] = []
    for operation in operations:
        _fuzz(operation, GenerationMode.POSITIVE, CONFORMANCE, tokens, calls)
    assert len(calls) >= 2 * len(operations)
    assert any(200 <= code < 300 for code in calls)  # not only refusals


def test_input_that_breaks_the_schema_is_refused_in_its_words(api_schema, tokens):
    operations = [op for op in _operations(api_schema) if _can_be_negated(op)]
    assert len(operations) > 20
    calls: list[int] = []
    checks = (*CONFORMANCE, negative_data_rejection)
    for operation in operations:
        _fuzz(operation, GenerationMode.NEGATIVE, checks, tokens, calls)
    assert len(calls) >= 2 * len(operations)
    assert all(400 <= code < 500 for code in calls), sorted(set(calls))


# Python's JSON parser recurses once per level; this ran it out of stack (a 500).
DEEP_BODY = b'{"a":' + b"[" * 4999 + b"]" * 4999 + b"}"


def test_a_deep_body_is_refused_by_every_operation_that_takes_one(api_schema, tokens):
    operations = [op for op in _operations(api_schema) if op.body]
    assert len(operations) > 10
    refusals: list[dict] = []
    for operation in operations:
        _send_deep_body(operation, tokens, refusals)
    assert len(refusals) == 2 * len(operations)
    assert {(body["code"], body["field"]) for body in refusals} == {("invalid", "body")}


# Creates whose bodies name other objects get real names planted, so sequences get past
# the create to the links; every other field stays generated.
PLANTED = {
    "POST /api/v1/notebooks/": {"image": IMAGE, "flavor": "h100", "gpus": 1},
    "POST /api/v1/jobs/": {"template": "pytorch-train", "flavor": "h100", "pods": 1},
    "POST /api/v1/whatif/": {"draft": {"vision": {"fair_weight": "1.5"}}},
}
# Planted names only work with the defaults for these (the caller's team, its queue).
UNPLANTED = ("team", "namespace", "queue", "user", "profile", "priority_tier", "image")


@pytest.fixture
def pending_change(queue, lead, envelope):
    """One change request waiting for an admin: list → approve/reject/withdraw links."""
    return set_policy(queue, lead, quotas=[quota("h100", "40"), quota("a100", "8")])


@pytest.mark.usefixtures("pool", "template", "pending_change")
@pytest.mark.parametrize("role", ["admin", "scientist"])
def test_linked_sequences_never_fail(api_schema, tokens, role):
    @api_schema.hook
    def map_body(context, body):
        planted = PLANTED.get(context.operation.label)
        if planted is None or not isinstance(body, dict):
            return body
        kept = {k: v for k, v in body.items() if k not in UNPLANTED}
        return {**kept, **planted}

    machine = api_schema.as_state_machine()
    transitions = api_schema.statistic.transitions.total
    assert transitions > 30  # the links portal/api_schema.py adds
    linked: list[tuple[str, int]] = []  # (operation, status) of steps a link fed

    class Sequences(machine):
        # Each scenario starts from the same database: objects one scenario made would
        # otherwise change what the next draws, and Hypothesis' replay of a failing
        # scenario would no longer draw the same steps (reported as a flaky strategy).
        def setup(self):
            self.savepoint = transaction.savepoint()

        def teardown(self):
            transaction.savepoint_rollback(self.savepoint)

        def get_call_kwargs(self, case):
            return {"headers": {"Authorization": f"Token {tokens[role]}"}}

        def step(self, input):
            output = super().step(input)
            if input.transition is not None and input.is_applied:
                linked.append((input.case.operation.label, output.response.status_code))
            return output

        def validate_response(self, response, case, additional_checks=None, **kwargs):
            case.validate_response(
                response,
                checks=(*CONFORMANCE, ensure_resource_availability),
                transport_kwargs=kwargs or None,
                recorder=self.recorder,
            )

    Sequences.run(
        settings=settings(
            max_examples=STATEFUL_SCENARIOS, stateful_step_count=STEPS_PER_SCENARIO, **HYPOTHESIS
        )
    )
    # Links were followed to objects made or listed earlier in the same sequence, and
    # at least one led somewhere: a detail read, an update or a delete that succeeded.
    # (Which chains a run reaches depends on the generated data; not asserted.)
    # A scientist may change almost nothing the links lead to; 403s are the right answer.
    if role == "admin":
        assert any(200 <= code < 300 for _, code in linked), linked
    assert linked


def _operations(api_schema) -> list:
    return [result.ok() for result in api_schema.get_all_operations()]


def _can_be_negated(operation) -> bool:
    """Operations with something that can break the schema: a body, a query parameter
    or a path parameter narrower than "any string". (The security scheme's header is
    not one: breaking it is "no credentials", tested in the authorization matrix.)"""
    if operation.body or operation.query:
        return True
    path = operation.path_parameters
    return any(p.definition.get("schema", {}).get("type") != "string" for p in path)


def _fuzz(
    operation, mode: GenerationMode, checks, tokens: dict[str, str], calls: list[int]
) -> None:
    @given(case=operation.as_strategy(mode))
    @settings(max_examples=EXAMPLES_PER_OPERATION, **HYPOTHESIS)
    def run(case) -> None:
        for token in tokens.values():
            response = case.call(headers={"Authorization": f"Token {token}"})
            calls.append(response.status_code)
            case.validate_response(response, checks=checks)

    run()


def _send_deep_body(operation, tokens: dict[str, str], refusals: list[dict]) -> None:
    """One generated case per token, its body replaced by ``DEEP_BODY``."""

    @given(case=operation.as_strategy(GenerationMode.POSITIVE))
    @settings(max_examples=1, **HYPOTHESIS)
    def run(case) -> None:
        for token in tokens.values():
            headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}
            response = case.call(headers=headers, data=DEEP_BODY)
            case.validate_response(response, checks=CONFORMANCE)
            refusals.append(response.json())

    run()
