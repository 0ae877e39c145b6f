"""Every kind of domain error becomes the one API body, with its status, in one place."""

from __future__ import annotations

from core.api_errors import exception_handler
from core.errors import Conflict, InvalidInput, NotAllowed, NotFound, RuleBroken


def answer(exc: Exception) -> tuple[int, dict]:
    response = exception_handler(exc, {})
    return response.status_code, response.data


def test_each_kind_answers_its_status_and_code():
    assert answer(NotAllowed("only admins")) == (
        403,
        {"code": "forbidden", "field": None, "detail": "only admins"},
    )
    assert answer(NotFound("no such run")) == (
        404,
        {"code": "not_found", "field": None, "detail": "no such run"},
    )
    assert answer(RuleBroken("give a name", code="invalid", field="name")) == (
        400,
        {"code": "invalid", "field": "name", "detail": "give a name"},
    )


def test_invalid_input_lists_every_field():
    status, body = answer(InvalidInput({"fair_weight": ["too big"], "name": ["taken"]}))
    assert status == 400
    assert body == {
        "code": "invalid",
        "field": "fair_weight",
        "detail": "fair_weight: too big (and 1 more field)",
        "errors": {"fair_weight": ["too big"], "name": ["taken"]},
    }


def test_a_conflict_says_what_changed_since():
    changes = [{"field": "fair_weight", "before": 1, "after": 2}]
    status, body = answer(Conflict("changed", current_version=4, changes=changes))
    assert status == 409
    assert body["current_version"] == 4 and body["changes_since_your_version"] == changes


def test_an_exception_outside_the_domain_is_left_to_django():
    assert exception_handler(RuntimeError("bug"), {}) is None
