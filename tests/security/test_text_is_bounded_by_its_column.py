"""Text longer than its column gets a 400 naming the field and the rule, and nothing
is written: no DataError on PostgreSQL, no silently stored overlong value on SQLite."""

from __future__ import annotations

import re

import pytest
from django.apps import apps
from django.db import models, transaction
from django.db.models.functions import Cast

from apps.queues.models import AuditEntry, Cohort, PriorityTier, ResourceFlavor, Team
from core.bounds import TEXT_LIMIT
from testkit.clients import api_as
from testkit.notebooks import IMAGE
from tests.security.test_authorization_matrix import _body as matrix_body
from tests.security.test_authorization_matrix import (
    _client,
    target_url,
    world,  # noqa: F401 (a fixture)
)
from tests.security.test_form_fuzz import FORMS, _filled, _our_tables, _row_counts, forms_world  # noqa: F401

LONG = "x" * 300


def _field_errors(response, field: str) -> list[str]:
    assert response.status_code == 400, response.content
    body = response.json()
    return body.get("errors", body).get(field, [])


def _assert_nothing_written(counts: dict) -> None:
    assert counts == _counts()


def _counts() -> dict:
    models = (AuditEntry, Team, ResourceFlavor, Cohort, PriorityTier)
    return {model.__name__: model.objects.count() for model in models}


CASES = [
    ("post", "/api/v1/flavors/", {"name": "l40s", "gpu_model": LONG}, "gpu_model"),
    ("put", "/api/v1/flavors/h100/", {"gpu_model": LONG}, "gpu_model"),
    ("post", "/api/v1/teams/", {"slug": "audio", "display_name": LONG}, "display_name"),
    ("post", "/api/v1/teams/", {"slug": "audio", "cost_center": LONG}, "cost_center"),
    ("post", "/api/v1/teams/", {"slug": LONG}, "slug"),
    ("post", "/api/v1/cohorts/", {"name": LONG}, "name"),
    (
        "post",
        "/api/v1/priority-tiers/",
        {"name": "p9", "value": 1, "description": "d" * 3000},
        "description",
    ),
    ("post", "/api/v1/queues/", {"name": LONG}, "name"),
]
DEFAULTS = {
    "/api/v1/flavors/": {"capacity": {"nvidia.com/gpu": "8"}},
    "/api/v1/flavors/h100/": {"capacity": {"nvidia.com/gpu": "64"}},
    "/api/v1/teams/": {"display_name": "Audio", "namespaces": ["team-audio"]},
}


@pytest.mark.parametrize(
    ("method", "url", "body", "field"), CASES, ids=[c[3] + c[1] for c in CASES]
)
def test_it_rejects_text_longer_than_its_column(catalog, method, url, body, field):
    counts = _counts()
    response = getattr(api_as(catalog), method)(
        url, {**DEFAULTS.get(url, {}), **body}, format="json"
    )
    messages = _field_errors(response, field)
    assert any(rule in m for m in messages for rule in ("at most", "must be", "no more than")), (
        response.json()
    )
    _assert_nothing_written(counts)


# --- every string field of every API body and every HTML form ---------------------------
# A 100,000-character value, far past any column and past TEXT_LIMIT (free text such as
# reasons, comments and descriptions), in each string field the API schema declares or a
# form row of test_form_fuzz posts, as a user who may use the endpoint: refused naming the
# field, and no row written. The fields come from the schema and the FORMS table, so a new
# field is walked without touching this file; a new endpoint needs a BASE body.
HUGE = "x" * 100_000
# (method, path as in the schema) → (who posts, a body the endpoint accepts).
BASE: dict[tuple[str, str], tuple[str, object]] = {
    ("post", "/api/v1/change-requests/{id}/approve/"): ("admin", {}),
    ("post", "/api/v1/change-requests/{id}/reject/"): ("admin", {"comment": "no"}),
    ("post", "/api/v1/cohorts/"): ("admin", {"name": "extra"}),
    ("put", "/api/v1/cohorts/{name}/"): ("admin", {"fair_weight": "2"}),
    ("patch", "/api/v1/cohorts/{name}/"): ("admin", {}),
    ("post", "/api/v1/flavors/"): ("admin", {"name": "l4", "capacity": {"nvidia.com/gpu": "8"}}),
    ("put", "/api/v1/flavors/{name}/"): ("admin", {"capacity": {"nvidia.com/gpu": "72"}}),
    ("patch", "/api/v1/flavors/{name}/"): ("admin", {}),
    ("post", "/api/v1/jobs/"): ("scientist", {"template": "pytorch-train", "flavor": "h100"}),
    ("post", "/api/v1/quotes/"): ("scientist", {"template": "pytorch-train", "flavor": "h100"}),
    ("post", "/api/v1/sweeps/"): (
        "scientist",
        {"template": "pytorch-train", "flavor": "h100", "grid": {"seed": [1]}},
    ),
    ("post", "/api/v1/notebooks/"): ("scientist", {"image": IMAGE, "flavor": "h100", "gpus": 1}),
    ("post", "/api/v1/inference-services/"): ("scientist", {"image": IMAGE, "flavor": "h100"}),
    ("post", "/api/v1/priority-tiers/"): ("admin", {"name": "p9", "value": 1}),
    ("put", "/api/v1/priority-tiers/{name}/"): ("admin", {"value": 150}),
    ("patch", "/api/v1/priority-tiers/{name}/"): ("admin", {}),
    ("post", "/api/v1/queues/"): ("admin", {"name": "extra-queue"}),
    ("put", "/api/v1/queues/{id}/"): ("admin", "policy"),
    ("patch", "/api/v1/queues/{id}/"): ("admin", "policy"),
    ("post", "/api/v1/queues/{id}/preview/"): ("admin", "policy"),
    ("post", "/api/v1/teams/"): (
        "admin",
        {"slug": "audio", "display_name": "A", "namespaces": ["team-audio"]},
    ),
    ("patch", "/api/v1/teams/{slug}/"): ("admin", {}),
    ("put", "/api/v1/teams/{slug}/envelope/"): ("admin", {"max_weight": "3"}),
    ("post", "/api/v1/teams/{slug}/members/"): (
        "admin",
        {"username": "peer2", "role": "scientist"},
    ),
    ("put", "/api/v1/teams/{slug}/members/{username}/"): ("admin", {"role": "lead"}),
    ("post", "/api/v1/users/"): ("admin", {"username": "carol"}),
    ("post", "/api/v1/users/{username}/disable/"): ("admin", {}),
    ("post", "/api/v1/users/{username}/enable/"): ("admin", {}),
    ("post", "/api/v1/users/{username}/stop-notebooks/"): ("admin", {}),
    ("post", "/api/v1/whatif/"): ("lead", {"draft": {"vision": {"fair_weight": "2"}}}),
    ("post", "/api/v1/whatif/{id}/apply/"): ("lead", {}),
    ("post", "/api/v1/suggestions/{id}/dismiss/"): ("lead", {}),
}
# Operations that write nothing (a preview answers the draft's problems with 200).
WRITE_NOTHING = {("post", "/api/v1/queues/{id}/preview/")}
OBJECT_OF = {  # a path's {placeholder} per resource
    "change-requests": "cr", "cohorts": "research", "flavors": "h100",
    "priority-tiers": "p2-standard", "queues": "queue", "teams": "vision", "whatif": "run",
    "suggestions": "sugg",
}  # fmt: skip


def _schema() -> dict:
    from drf_spectacular.generators import SchemaGenerator

    return SchemaGenerator().get_schema(request=None, public=True)


def _string_fields(schema: dict) -> list[tuple[str, str, str]]:
    """(method, path, field) for each top-level string property of each request body."""
    components = schema["components"]["schemas"]
    found = []
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            content = operation.get("requestBody", {}).get("content", {})
            body = content.get("application/json", {}).get("schema", {})
            body = components.get(body.get("$ref", "").rsplit("/", 1)[-1], body)
            for field, spec in body.get("properties", {}).items():
                # A body field named like the path's key ({name}) is ignored: the URL names it.
                ignored = f"{{{field}}}" in path or (method, path) in WRITE_NOTHING
                if spec.get("type") == "string" and not spec.get("readOnly") and not ignored:
                    found.append((method, path, field))
    return found


def _api_cases():
    return [pytest.param(*case, id="-".join(case)) for case in _string_fields(_schema())]


def _target(path: str, objects: dict) -> str:
    resource = path.split("/")[3]
    value = OBJECT_OF.get(resource)
    obj = objects.get(value, value)
    return (
        path.replace("{id}", str(getattr(obj, "pk", obj)))
        .replace("{name}", str(obj))
        .replace("{slug}", "vision")
        .replace("{username}", "scientist")
    )


@pytest.mark.parametrize(("method", "path", "field"), _api_cases())
def test_every_string_field_of_the_api_is_bounded(forms_world, method, path, field):  # noqa: F811
    objects = forms_world
    assert (method, path) in BASE, f"add a body {path} accepts to BASE"
    role, base = BASE[(method, path)]
    body = {**matrix_body(base, objects["queue"]), field: HUGE}
    tables = _our_tables()
    before = _row_counts(tables)
    response = getattr(api_as(objects["users"][role]), method)(
        _target(path, objects), body, format="json"
    )
    assert response.status_code == 400, response.content[:300]
    assert field in response.json().get("errors", {field: None}), response.json()
    assert _row_counts(tables) == before


def _form_cases():
    for name, (_url, roles, _valid, _done) in sorted(FORMS.items()):
        yield pytest.param(name, roles[0], id=name)


# Inputs a person types into; the rest (hidden, checkboxes, buttons) are fuzzed elsewhere.
TYPED = re.compile(
    r'<textarea[^>]*\bname="([^"]+)"|<input(?![^>]*type="(?:hidden|checkbox|radio|submit|'
    r'password|button)")[^>]*\bname="([^"]+)"'
)


def _typed_fields(client, url: str, valid: dict) -> list[str]:
    """The string fields of the row's body, and every field typed into the page's forms."""
    fields = {field for field, value in valid.items() if isinstance(value, str)}
    page = client.get(url)
    if page.status_code == 200 and not page.streaming:
        fields |= {a or b for a, b in TYPED.findall(page.content.decode())}
    return sorted(fields - {"password", "csrfmiddlewaretoken"})


@pytest.mark.parametrize(("name", "role"), list(_form_cases()))
def test_every_typed_field_of_every_form_is_bounded(forms_world, name, role):  # noqa: F811
    """A form's fields include some a view ignores, so the rule here is the one that
    matters: the value is stored nowhere, and a refusal writes nothing. Each field is
    posted in a savepoint rolled back after it, so every post starts from the same world."""
    url, _roles, valid, done = FORMS[name]
    target = target_url(url, forms_world)
    client = _client(role, forms_world["users"][role], api=False)
    tables = _our_tables()
    for field in _typed_fields(client, target, valid):
        savepoint = transaction.savepoint()
        try:
            before = _row_counts(tables)
            response = client.post(target, {**_filled(valid, forms_world), field: HUGE})
            assert response.status_code < 500, field
            if response.status_code not in done:
                assert _row_counts(tables) == before, field
            assert not _columns_holding(HUGE[: TEXT_LIMIT + 1]), field
        finally:
            transaction.savepoint_rollback(savepoint)


def _columns_holding(text: str) -> list[str]:
    """Every column of our tables (text or JSON, read as text) with ``text`` in a row."""
    found = []
    for model in apps.get_models():
        if not model.__module__.startswith("apps.") or not model._meta.managed:
            continue
        for column in model._meta.concrete_fields:
            if isinstance(column, (models.CharField, models.TextField, models.JSONField)):
                rows = model.objects.annotate(as_text=Cast(column.name, models.TextField()))
                if rows.filter(as_text__contains=text).exists():
                    found.append(f"{model._meta.db_table}.{column.name}")
    return found
