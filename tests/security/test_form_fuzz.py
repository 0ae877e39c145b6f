"""Hypothesis posts hostile values to every HTML form, as each role that may use it.

Each field of a valid body is kept, dropped, repeated, or replaced by something hostile
(``1e9999999``, 10,000 characters, NUL bytes, negative and non-numeric numbers, markup);
a body is also sent that is not UTF-8 at all. Never a 5xx; and a post that is refused
(anything but the form's success answer) writes nothing: no row in any of our tables.

``test_every_form_has_a_row`` fails for a page view that reads a POST without a row in
``FORMS``.
"""

from __future__ import annotations

import inspect

import pytest
from django.apps import apps
from django.db import connection
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from testkit.fixtures.inference import SERVING_IMAGE
from testkit.notebooks import IMAGE
from tests.security.test_authorization_matrix import (  # noqa: F401 (world is a fixture)
    ADMIN_POST,
    FORM,
    MATRIX,
    _client,
    target_url,
    world,
)
from tests.security.test_authorization_matrix import _body as matrix_body
from tests.security.urls import url_views

EXAMPLES_PER_FORM_AND_ROLE = 10
URLENCODED = "application/x-www-form-urlencoded"
Q = "q|h100|nvidia.com/gpu|"  # apps/queues/forms.py quota_field()
# The queue form: the matrix's body (version, weight, strategies, preemption) plus a quota.
POLICY = {
    "borrow_max_priority_threshold": "",
    f"{Q}nominal": "16",
    f"{Q}borrowing_limit": "",
    f"{Q}lending_limit": "",
    "order|h100": "0",
    "fair_between_users": "",
    "reason": "fuzz",
    "capacity_override_reason": "",
}

# name → (URL, roles that may use it, a valid body, the statuses that mean "done").
# Roles as in the authorization matrix; a URL there that accepts POST needs a row here.
JOB_FORM = {
    "template": "pytorch-train",
    "command": "python train.py",
    "flavor": "h100",
    "gpus_per_pod": "1",
    "pods": "1",
    "priority_tier": "p2-standard",
    "max_runtime_minutes": "60",
    "checkpoint_dir": "",
    "checkpoint_interval_minutes": "",
    "topology": "",
    "topology_mode": "",
    "team": "vision",
    "display_name": "fuzz",
}
SWEEP_FORM = {**JOB_FORM, "grid": '{"seed": [1, 2]}', "parameters": "", "concurrency_limit": ""}
FORMS: dict[str, tuple[str, tuple[str, ...], dict, tuple[int, ...]]] = {
    "login": ("/login/", ("anonymous",), {"username": "scientist", "password": "pw"}, (302,)),
    "logout": ("/logout/", ("scientist",), {}, (302,)),
    "queues:queue-edit": (
        "/queues/{queue}/edit/",
        ("lead", "admin"),
        {**POLICY, "save": "1"},
        (302,),
    ),
    "queues:change-request-decide": (
        "/change-requests/{cr}/decide/",
        ("admin",),
        {"decision": "approve", "comment": "ok", "capacity_override_reason": ""},
        (302,),
    ),
    "queues:cluster-import": ("/cluster/import/", ("admin",), {}, (302,)),
    "queues:cluster-adopt": (
        "/cluster/adopt/",
        ("admin",),
        {"namespace": "team-vision", "reason": "handed over"},
        (302,),
    ),
    "accounts:tokens": ("/tokens/", ("scientist", "admin"), {"name": "a", "days": "30"}, (201,)),
    "accounts:token-revoke": ("/tokens/{tok}/revoke/", ("scientist",), {}, (302,)),
    "jobs:launchers": (
        "/launchers/",
        ("admin",),
        {"user": "launcher-bot", "name": "hub", "days": "30", "teams": ["vision"]},
        (201,),
    ),
    "jobs:launcher-teams": ("/launchers/{grant}/teams/", ("admin",), {"teams": ["vision"]}, (302,)),
    "jobs:launcher-revoke": ("/launchers/{grant}/revoke/", ("admin",), {}, (302,)),
    "notifications:preferences": (
        "/notifications/",
        ("scientist", "lead"),
        {
            "email_enabled": "on",
            "webhook_url": "",
            "webhook_format": "json",
            "muted_kinds": [],
        },
        (302,),
    ),
    "jobs:notebook-new": (
        "/notebooks/new/",
        ("scientist", "lead"),
        {
            "image": IMAGE,
            "flavor": "h100",
            "gpus": "1",
            "profile": "standard",
            "ttl_hours": "8",
            "team": "vision",
            "display_name": "fuzz",
        },
        (302,),
    ),
    "jobs:notebook-renew": ("/notebooks/{nb}/renew/", ("scientist", "lead"), {}, (302,)),
    "jobs:notebook-stop": (
        "/notebooks/{nb}/stop/",
        ("scientist", "admin"),
        {"confirm": "yes"},
        (302,),
    ),
    "jobs:job-new": ("/jobs/new/", ("scientist", "lead"), JOB_FORM, (302,)),
    "jobs:inference-new": (
        "/inference/new/",
        ("scientist", "lead"),
        {
            "image": SERVING_IMAGE,
            "flavor": "h100",
            "replicas": "1",
            "gpus_per_replica": "1",
            "command": "serve",
            "team": "vision",
            "display_name": "fuzz",
        },
        (302,),
    ),
    "jobs:inference-stop": ("/inference/{inf}/stop/", ("scientist", "lead"), {}, (302,)),
    "jobs:job-cancel": ("/jobs/{job}/cancel/", ("scientist", "lead"), {}, (302,)),
    "jobs:sweep-new": ("/sweeps/new/", ("scientist", "lead"), SWEEP_FORM, (302,)),
    "jobs:sweep-cancel": ("/sweeps/{sweep}/cancel/", ("scientist", "lead"), {}, (302,)),
    "jobs:sweep-retry": ("/sweeps/{sweep}/retry/", ("scientist", "lead"), {}, (302,)),
    "jobs:sweep-limit": ("/sweeps/limits/vision/", ("lead", "admin"), {"per_user": "3"}, (302,)),
    "whatif:apply": ("/whatif/{run}/apply/", ("lead", "admin"), {"reason": "go"}, (302,)),
    "whatif:from-change-request": ("/change-requests/{cr}/whatif/", ("lead",), {}, (302,)),
    "whatif:from-queue": ("/queues/{queue}/whatif/", ("lead", "admin"), POLICY, (302,)),
    # "Look again now" reads no form fields; fuzzed ones are ignored and it redirects.
    "whatif:suggestion-refresh": ("/whatif/suggestions/refresh/", ("lead", "admin"), {}, (302,)),
    "whatif:suggestion-dismiss": (
        "/whatif/suggestions/{sugg}/dismiss/",
        ("lead", "admin"),
        {"reason": "we grow in March"},
        (302,),
    ),
    "users:new": (
        "/administration/users/new/",
        ("admin",),
        {"username": "carol", "email": "carol@example.org", "display_name": "Carol Smith"},
        (201,),
    ),
    # A link that is not valid answers its page (200) whatever is posted.
    "accounts:set-password": (
        "/set-password/MQ/bad-token/",
        ("anonymous",),
        {"new_password1": "a-long-passphrase", "new_password2": "a-long-passphrase"},
        (200,),
    ),
}
# The administration forms: the matrix's admin posts, which save and redirect.
FORMS.update(
    {
        name: (url, ("admin",), body, (302,))
        for name, rows in MATRIX.items()
        for method, url, body, expected in rows
        if method == "post" and expected == ADMIN_POST
    }
)

HOSTILE = st.one_of(
    st.sampled_from(
        [
            "1e9999999",
            "-1e9999999",
            "1e-9999999",
            "9" * 5000,
            "-1",
            "0",
            "NaN",
            "-inf",
            "x" * 10_000,
            "\x00",
            "a\x00b",
            "",
            " ",
            "<script>alert(1)</script>",
            "=cmd|' /C calc'!A0",
            "../../etc/passwd",
            "１２",
            "[]",
            "null",
        ]
    ),
    st.text(max_size=40),
    st.integers(min_value=-(10**40), max_value=10**40).map(str),
)
KEEP, DROP = object(), object()
VALUE = st.one_of(st.just(KEEP), st.just(DROP), HOSTILE, st.lists(HOSTILE, min_size=2, max_size=3))


@pytest.fixture
def forms_world(db, settings, request):
    objects = request.getfixturevalue("world")  # the authorization matrix's, imported above
    # Sign-in lockouts are audited writes; the fuzzer is not what they are for.
    settings.QM_LOGIN_FAILURES_PER_ACCOUNT = settings.QM_LOGIN_FAILURES_PER_ADDRESS = 10**6
    return objects


def _cases():
    for name, (_url, roles, _body, _done) in sorted(FORMS.items()):
        for role in roles:
            yield pytest.param(name, role, id=f"{name}-{role}")


@pytest.mark.parametrize(("name", "role"), list(_cases()))
def test_hostile_form_posts_never_fail_and_refusals_write_nothing(forms_world, name, role):
    url, _roles, valid, done = FORMS[name]
    target = target_url(url, forms_world)
    user = forms_world["users"][role]
    tables = _our_tables()
    # The row is right: its valid body is what the form accepts.
    response = _client(role, user, api=False).post(target, _filled(valid, forms_world))
    assert response.status_code in done, response.content[:500]
    valid = _filled(valid, forms_world)  # the queue's version moved on

    def post(body, **kwargs):
        before = _row_counts(tables)
        response = _client(role, user, api=False).post(target, body, **kwargs)
        assert response.status_code < 500, (body, response.content[:500])
        if response.status_code not in done:
            assert _row_counts(tables) == before, (body, response.status_code)

    # Not UTF-8 at all.
    field = next(iter(valid), "x")
    post(f"{field}=%FF%FE%00%C3&".encode() + b"\xff", content_type=URLENCODED)

    @given(st.fixed_dictionaries({field: VALUE for field in valid}, optional={"extra": HOSTILE}))
    @settings(
        max_examples=EXAMPLES_PER_FORM_AND_ROLE,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        derandomize=True,
        database=None,
    )
    def fuzz(choices):
        post(_mutated(valid, choices))

    fuzz()


def test_every_form_has_a_row():
    """Every page view that reads a POST (``request.POST``, a ``post`` method, a
    ``require_POST``-style decorator) has a row in FORMS; the API and Django's admin
    are fuzzed elsewhere (test_api_fuzz.py; staff only)."""
    accepting = {
        name
        for name, (route, view) in url_views().items()
        if not route.startswith(("api/", "admin/")) and _reads_post(view)
    }
    assert {"login", "queues:queue-edit", "jobs:notebook-new"} <= accepting  # the probe works
    missing = accepting - set(FORMS)
    assert not missing, f"add rows to tests/security/test_form_fuzz.py FORMS: {sorted(missing)}"
    assert set(FORMS) <= accepting, "rows for forms that are gone test nothing"


def _reads_post(view) -> bool:
    view_class = getattr(view, "view_class", None)
    if view_class is not None:
        return hasattr(view_class, "post")
    source = inspect.getsource(inspect.unwrap(view))
    return "POST" in source or "_posted(request)" in source  # catalog_views' helper


def _filled(valid: dict, objects: dict) -> dict:
    """The row's body; a queue form gets the queue's current version (it moves on)."""
    if Q + "nominal" not in valid:
        return dict(valid)
    queue = objects["queue"].__class__.objects.get(pk=objects["queue"].pk)
    policy = {k: v for k, v in matrix_body(FORM, queue).items() if k != "preview"}
    return {**policy, **valid}


def _mutated(valid: dict, choices: dict) -> dict:
    body = {}
    for field, choice in choices.items():
        if choice is KEEP:
            body[field] = valid[field]
        elif choice is not DROP:
            body[field] = choice
    return body


def _our_tables() -> list[str]:
    return sorted(
        model._meta.db_table
        for model in apps.get_models()
        if model.__module__.startswith("apps.") and model._meta.managed
    )


def _row_counts(tables: list[str]) -> tuple[int, ...]:
    """Every table's row count in one round trip."""
    quoted = [connection.ops.quote_name(t) for t in tables]
    sql = "SELECT " + ", ".join(f"(SELECT count(*) FROM {t})" for t in quoted)
    with connection.cursor() as cursor:
        cursor.execute(sql)
        return tuple(cursor.fetchone())
