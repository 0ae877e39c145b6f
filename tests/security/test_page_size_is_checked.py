"""A list's ``page_size`` is a whole number from 1 to 500; anything else is refused
naming the parameter, instead of quietly answering a page of the default size."""

from __future__ import annotations

import pytest

from testkit.clients import api_as


@pytest.mark.parametrize("asked", ["abc", "0", "-3", "501", "2.5", "１０"])
def test_a_page_size_outside_the_rule_is_refused_naming_it(admin, asked):
    response = api_as(admin).get("/api/v1/audit/", {"page_size": asked})
    assert response.status_code == 400, response.content[:300]
    body = response.json()
    assert body["code"] == "invalid"
    assert body["field"] == "page_size"
    assert "1 to 500" in body["detail"] and "page_size=100" in body["detail"]


@pytest.mark.parametrize("asked", ["1", "500"])
def test_a_page_size_within_the_rule_is_used(admin, asked):
    response = api_as(admin).get("/api/v1/audit/", {"page_size": asked})
    assert response.status_code == 200
    assert len(response.json()["results"]) <= int(asked)


def test_the_schema_states_the_bounds(admin):
    schema = api_as(admin).get("/api/schema/?format=json").json()
    parameters = schema["paths"]["/api/v1/audit/"]["get"]["parameters"]
    (page_size,) = [p for p in parameters if p["name"] == "page_size"]
    assert page_size["schema"] == {"type": "integer", "minimum": 1, "maximum": 500}
