"""A notebook's quote, from the interactive pool's own accounting, worked out by hand.

The pool holds 8 h100 GPUs; here a user may have 4 notebooks and 8 GPUs, so the
scientist's four 2-GPU notebooks fill it and the lead's 2-GPU notebook has to wait.
"""

from datetime import UTC, datetime, timedelta

import pytest

from apps.jobs.choices import NotebookState
from apps.jobs.models import InteractivePool, Notebook
from apps.jobs.services import NotebookRequest, Principal, request_notebook
from testkit.clients import api_as, token_client
from testkit.notebooks import IMAGE

pytestmark = pytest.mark.django_db

NOTEBOOK = {"kind": "notebook", "image": IMAGE, "flavor": "h100", "gpus": 2}
# Whole seconds, as the API writes times.
NOW = datetime.now(UTC).replace(microsecond=0)


def notebook(user, **fields) -> Notebook:
    """A 2-GPU notebook of ``user`` (vision), with ``fields`` as the status pass records them."""
    spec = NotebookRequest(image=IMAGE, flavor="h100", gpus=2)
    record = request_notebook(user, spec, actor=Principal(user)).record
    Notebook.objects.filter(pk=record.pk).update(**fields)
    return record


@pytest.fixture
def roomy(pool):
    InteractivePool.objects.filter(pk=pool.pk).update(max_gpus_per_user=8, max_notebooks_per_user=4)


def full_pool(scientist, readies: list[timedelta]) -> None:
    for ago in readies:
        notebook(scientist, state=NotebookState.READY, ready_at=NOW - ago)


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def test_a_notebook_with_room_starts_now(roomy, scientist):
    body = api_as(scientist).post("/api/v1/quotes/", NOTEBOOK, format="json").json()
    assert (body["verdict"], body["summary"]) == ("now", "it would start now on the pool's h100")


def test_by_its_policy_nothing_may_preempt_a_notebook(roomy, scientist):
    # The pool's ClusterQueue has withinClusterQueue: Never and never borrows.
    body = api_as(scientist).post("/api/v1/quotes/", NOTEBOOK, format="json").json()
    risk = body["preemption_risk"]
    assert (risk["by_policy"], risk["probability"]) == ([], 0.0)
    assert risk["policy_summary"] == (
        "none: its queue preempts nothing within itself (withinClusterQueue: Never) "
        "and it borrows nothing"
    )


def test_a_full_pool_frees_room_when_its_first_notebook_is_expected_to_end(roomy, scientist, lead):
    # vision's ended h100 notebooks lived 1, 2 and 3 h: p50 = 2 h; p90: h = 2 × 0.9 = 1.8,
    # 2 + 0.8 × (3 − 2) = 2.8 h = 10,080 s.
    for hours in (1, 2, 3):
        notebook(
            scientist,
            state=NotebookState.STOPPED,
            ready_at=NOW - timedelta(days=1, hours=hours),
            ended_at=NOW - timedelta(days=1),
        )
    # Four 2-GPU notebooks ready 90, 60, 30 and 10 minutes ago fill the 8 GPUs; each
    # expires 8 h after its request (now), so no lifetime above is cut short.
    full_pool(scientist, [timedelta(minutes=m) for m in (90, 60, 30, 10)])
    body = api_as(lead).post("/api/v1/quotes/", NOTEBOOK, format="json").json()
    assert body["verdict"] == "later"
    assert body["pending_reason"] == "0 h100 GPUs free in the interactive pool, 2 requested"
    # The one ready 90 min ago ends first and frees the 2 GPUs asked for.
    first_ready = NOW - timedelta(minutes=90)
    assert body["estimated_start"] == {
        "p50": iso(first_ready + timedelta(hours=2)),
        "p90": iso(first_ready + timedelta(seconds=10_080)),
    }
    assert body["estimate_note"] == (
        "from the recorded lifetimes of the pool's notebooks of this flavor"
    )


def test_without_recorded_lifetimes_the_pool_frees_room_at_the_first_expiry(roomy, scientist, lead):
    full_pool(scientist, [timedelta(minutes=m) for m in (90, 60, 30, 10)])
    expiries = sorted(Notebook.objects.active().values_list("expires_at", flat=True))
    body = api_as(lead).post("/api/v1/quotes/", NOTEBOOK, format="json").json()
    first = iso(expiries[0])
    assert body["estimated_start"] == {"p50": first, "p90": first}
    assert body["estimate_note"] == (
        "assuming the 4 notebooks without a recorded lifetime run until they expire"
    )


def test_a_notebook_larger_than_the_pool_is_never(roomy, scientist):
    body = api_as(scientist).post("/api/v1/quotes/", {**NOTEBOOK, "gpus": 9}, format="json")
    assert body.status_code == 200
    assert (body.json()["verdict"], body.json()["field"]) == ("never", "gpus")


def test_bad_kind_and_notebook_fields_are_400_naming_the_field(roomy, scientist):
    quotes = api_as(scientist)
    bad_kind = quotes.post("/api/v1/quotes/", {**NOTEBOOK, "kind": "vm"}, format="json")
    assert (bad_kind.status_code, bad_kind.json()["field"]) == (400, "kind")
    unknown = quotes.post("/api/v1/quotes/", {**NOTEBOOK, "template": "x"}, format="json")
    assert (unknown.status_code, unknown.json()["code"]) == (400, "unknown_field")
    assert not Notebook.objects.exists()


def test_a_launchers_request_refused_for_a_full_pool_carries_the_quote(
    roomy, scientist, lead, launcher
):
    full_pool(scientist, [timedelta(minutes=m) for m in (90, 60, 30, 10)])
    body = {key: value for key, value in NOTEBOOK.items() if key != "kind"}
    refused = token_client(launcher["raw"]).post(
        "/api/v1/notebooks/", {**body, "user": "lead"}, format="json"
    )
    assert refused.status_code == 409
    answer = refused.json()
    assert answer["code"] == "pool_full"
    assert answer["quote"]["verdict"] == "later"
    expiries = sorted(Notebook.objects.active().values_list("expires_at", flat=True))
    assert answer["quote"]["estimated_start"]["p50"] == iso(expiries[0])
    assert Notebook.objects.filter(owner=lead).count() == 0
