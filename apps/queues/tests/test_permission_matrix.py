"""Roles × pages × endpoints: who gets what.

One row per URL and method; one column per persona. Reads of data that isn't
yours answer 404, as for data that doesn't exist.
"""

import pytest

from testkit.factories import quota, set_policy

ROLES = ("anonymous", "scientist", "other_lead", "lead", "admin")
LOGIN = 302  # pages send anonymous users to the login form
UNAUTH = 401  # the API asks for credentials

# (method, url, body, expected status per role in ROLES order)
PAGES = [
    ("get", "/", None, (LOGIN, 200, 200, 200, 200)),
    ("get", "/teams/vision/", None, (LOGIN, 200, 200, 200, 200)),
    ("get", "/teams/vision/audit/", None, (LOGIN, 200, 404, 200, 200)),
    ("get", "/teams/vision/audit/?format=csv", None, (LOGIN, 200, 404, 200, 200)),
    ("get", "/queues/{queue}/", None, (LOGIN, 200, 200, 200, 200)),
    ("get", "/queues/{queue}/edit/", None, (LOGIN, 403, 403, 200, 200)),
    ("post", "/queues/{queue}/edit/", "form", (LOGIN, 403, 403, 200, 200)),
    ("get", "/change-requests/", None, (LOGIN, 200, 200, 200, 200)),
    ("get", "/change-requests/{cr}/", None, (LOGIN, 200, 404, 200, 200)),
    ("post", "/change-requests/{cr}/decide/", {"decision": "approve"}, (LOGIN, 403, 404, 403, 302)),
    ("get", "/audit/", None, (LOGIN, 403, 403, 403, 200)),
    ("get", "/audit/?format=csv", None, (LOGIN, 403, 403, 403, 200)),
]
ENDPOINTS = [
    ("get", "/api/v1/teams/", None, (UNAUTH, 200, 200, 200, 200)),
    (
        "post",
        "/api/v1/teams/",
        {"slug": "new", "display_name": "New", "namespaces": ["team-new"]},
        (UNAUTH, 403, 403, 403, 201),
    ),
    ("get", "/api/v1/teams/vision/", None, (UNAUTH, 200, 200, 200, 200)),
    ("get", "/api/v1/teams/vision/envelope/", None, (UNAUTH, 200, 200, 200, 200)),
    ("put", "/api/v1/teams/vision/envelope/", {"max_weight": "3"}, (UNAUTH, 403, 403, 403, 200)),
    ("get", "/api/v1/flavors/", None, (UNAUTH, 200, 200, 200, 200)),
    (
        "post",
        "/api/v1/flavors/",
        {"name": "l4", "capacity": {"nvidia.com/gpu": "8"}},
        (UNAUTH, 403, 403, 403, 201),
    ),
    (
        "put",
        "/api/v1/flavors/h100/",
        {"capacity": {"nvidia.com/gpu": "72"}},
        (UNAUTH, 403, 403, 403, 200),
    ),
    ("get", "/api/v1/cohorts/", None, (UNAUTH, 200, 200, 200, 200)),
    ("post", "/api/v1/cohorts/", {"name": "extra"}, (UNAUTH, 403, 403, 403, 201)),
    ("get", "/api/v1/priority-tiers/", None, (UNAUTH, 200, 200, 200, 200)),
    ("post", "/api/v1/priority-tiers/", {"name": "p9", "value": 1}, (UNAUTH, 403, 403, 403, 201)),
    ("get", "/api/v1/queues/", None, (UNAUTH, 200, 200, 200, 200)),
    ("post", "/api/v1/queues/", {"name": "extra-queue"}, (UNAUTH, 403, 403, 403, 201)),
    ("get", "/api/v1/queues/{queue}/", None, (UNAUTH, 200, 200, 200, 200)),
    ("put", "/api/v1/queues/{queue}/", "policy", (UNAUTH, 403, 403, 200, 200)),
    ("patch", "/api/v1/queues/{queue}/", "policy", (UNAUTH, 403, 403, 200, 200)),
    ("post", "/api/v1/queues/{queue}/preview/", "policy", (UNAUTH, 403, 403, 200, 200)),
    ("get", "/api/v1/change-requests/", None, (UNAUTH, 200, 200, 200, 200)),
    ("get", "/api/v1/change-requests/{cr}/", None, (UNAUTH, 200, 404, 200, 200)),
    ("post", "/api/v1/change-requests/{cr}/approve/", {}, (UNAUTH, 403, 404, 403, 200)),
    (
        "post",
        "/api/v1/change-requests/{cr}/reject/",
        {"comment": "no"},
        (UNAUTH, 403, 404, 403, 200),
    ),
    # Only the requester (the lead) withdraws; an admin rejects instead.
    ("post", "/api/v1/change-requests/{cr}/withdraw/", {}, (UNAUTH, 403, 404, 200, 403)),
    ("get", "/api/v1/audit/", None, (UNAUTH, 200, 200, 200, 200)),
    ("get", "/api/v1/audit/export/", None, (UNAUTH, 200, 200, 200, 200)),
    # The schema and its docs are public: they describe the API, they reveal no data.
    ("get", "/api/schema/", None, (200, 200, 200, 200, 200)),
    ("get", "/api/docs/", None, (200, 200, 200, 200, 200)),
]


@pytest.fixture
def world(queue, other_queue, lead, scientist, other_lead, admin, envelope):
    change_request = set_policy(queue, lead, quotas=[quota("h100", "40")]).change_request
    users = {
        "anonymous": None,
        "scientist": scientist,
        "other_lead": other_lead,
        "lead": lead,
        "admin": admin,
    }
    return {"queue": queue, "cr": change_request, "users": users}


def _body(kind, queue):
    if kind == "policy":
        return {"version": queue.version, "fair_weight": "1.5"}
    if kind == "form":
        return {
            "version": queue.version,
            "fair_weight": "1.5",
            "queueing_strategy": "BestEffortFIFO",
            "stop_policy": "None",
            "reclaim_within_cohort": "Never",
            "within_cluster_queue": "Never",
            "borrow_within_cohort": "Never",
            "cohort": "research",
            "preview": "1",
        }
    return kind


def _cases(rows):
    return [
        pytest.param(method, url, body, role, expected[i], id=f"{role}-{method}-{url}")
        for method, url, body, expected in rows
        for i, role in enumerate(ROLES)
    ]


@pytest.mark.parametrize(("method", "url", "body", "role", "expected"), _cases(PAGES))
def test_pages(client, world, method, url, body, role, expected):
    user = world["users"][role]
    if user is not None:
        client.force_login(user)
    target = url.format(queue=world["queue"].pk, cr=world["cr"].pk)
    response = getattr(client, method)(target, _body(body, world["queue"]) or {})
    assert response.status_code == expected


@pytest.mark.parametrize(("method", "url", "body", "role", "expected"), _cases(ENDPOINTS))
def test_endpoints(world, method, url, body, role, expected):
    from testkit.clients import api_as

    target = url.format(queue=world["queue"].pk, cr=world["cr"].pk)
    data = _body(body, world["queue"])
    response = getattr(api_as(world["users"][role]), method)(target, data, format="json")
    assert response.status_code == expected, response.content[:300]
