"""Text longer than its column gets a 400 naming the field and the rule, and nothing
is written: no DataError on PostgreSQL, no silently stored overlong value on SQLite."""

from __future__ import annotations

import pytest

from apps.queues.models import AuditEntry, Cohort, PriorityTier, ResourceFlavor, Team
from conftest import api_as

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
