"""Sweep API: submit with a grid or a list, progress, errors naming the field, cancel."""

import pytest

from apps.jobs.models import BatchJob, Sweep
from testkit.clients import api_as

pytestmark = pytest.mark.django_db

URL = "/api/v1/sweeps/"
BODY = {
    "template": "pytorch-train",
    "flavor": "h100",
    "grid": {"lr": ["0.1", "0.01"], "seed": [1, 2]},
}


def test_a_grid_sweep_releases_its_limit_and_reports_progress(scientist, queue, template):
    response = api_as(scientist).post(URL, {**BODY, "concurrency_limit": 1}, format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    # 2 lr × 2 seeds = 4 trials; limit 1: one submitted, three not released
    assert body["trials"] == 4 and body["concurrency_limit"] == 1
    assert body["progress"] == {"done": 0, "running": 0, "waiting": 4, "failed": 0, "cancelled": 0}
    assert [t["state"] for t in body["trial_list"]] == [
        "submitted",
        "unreleased",
        "unreleased",
        "unreleased",
    ]
    assert body["trial_list"][3]["parameters"] == {"lr": "0.01", "seed": "2"}
    assert BatchJob.objects.get().command == ["python", "train.py", "--lr=0.1", "--seed=1"]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"grid": {"lr": "0.1"}}, "grid.lr"),  # not a list
        ({"grid": {"lr": []}}, "grid"),
        ({"parameters": [{"lr": "0.1"}]}, "parameters"),  # both a grid and a list
        ({"concurrency_limit": 3}, "concurrency_limit"),  # the default team limit is 2
        ({"concurrency_limit": 0}, "concurrency_limit"),  # given, not "the default"
        ({"grid": None, "parameters": [{"lr": "0.1"}, {}]}, "parameters"),  # an empty trial
        ({"pods": 100}, "pods"),
        ({"replicas": 2}, "replicas"),
    ],
)
def test_a_bad_sweep_names_the_field_and_writes_nothing(scientist, queue, template, change, field):
    body = {k: v for k, v in {**BODY, **change}.items() if v is not None}  # None: left out
    response = api_as(scientist).post(URL, body, format="json")
    assert response.status_code == 400, response.json()
    assert response.json()["field"] == field
    assert not Sweep.objects.exists() and not BatchJob.objects.exists()


def test_cancel_cancels_the_released_trials_and_releases_no_more(scientist, queue, template):
    client = api_as(scientist)
    sweep = client.post(URL, BODY, format="json").json()
    response = client.post(f"{URL}{sweep['id']}/cancel/", format="json")
    assert response.status_code == 200
    body = response.json()
    assert body["state"] == "cancelled"
    # 4 trials: the 2 released are cancelled, and so are the 2 never released
    assert body["progress"] == {"done": 0, "running": 0, "waiting": 0, "failed": 0, "cancelled": 4}
    assert BatchJob.objects.count() == 2


def test_the_list_costs_a_fixed_number_of_queries(
    scientist, queue, template, django_assert_max_num_queries
):
    client = api_as(scientist)
    for _ in range(3):
        assert client.post(URL, {**BODY, "concurrency_limit": 1}, format="json").status_code == 201
    with django_assert_max_num_queries(6):
        response = client.get(URL)
    assert [s["trials"] for s in response.json()["results"]] == [4, 4, 4]


def test_a_retried_sweep_with_its_key_is_stored_once(scientist, queue, template):
    client = api_as(scientist)
    first = client.post(URL, BODY, format="json", HTTP_IDEMPOTENCY_KEY="sweep-1")
    again = client.post(URL, BODY, format="json", HTTP_IDEMPOTENCY_KEY="sweep-1")
    assert first.status_code == again.status_code == 201
    assert again["Idempotent-Replayed"] == "true" and "Idempotent-Replayed" not in first
    assert again.json()["id"] == first.json()["id"]
    # one sweep, and only its first release: 4 trials at the default limit of 2
    assert Sweep.objects.count() == 1 and BatchJob.objects.count() == 2

    other = client.post(
        URL, {**BODY, "grid": {"seed": [1]}}, format="json", HTTP_IDEMPOTENCY_KEY="sweep-1"
    )
    assert other.status_code == 422 and other.json()["code"] == "idempotency_key_reused"
    assert Sweep.objects.count() == 1
    # without a key, the same body is a second sweep
    assert client.post(URL, BODY, format="json").status_code == 201
    assert Sweep.objects.count() == 2
