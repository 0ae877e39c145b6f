"""Two people editing one queue: the second save gets a conflict, never a silent overwrite."""

import threading

import pytest
from django.db import close_old_connections

from apps.queues import services
from apps.queues.models import Queue
from core.errors import Conflict
from testkit.factories import quota, set_policy, snapshot


def test_a_stale_version_is_refused_with_what_changed(queue, admin, lead, envelope):
    seen = snapshot(queue)["version"]
    set_policy(queue, admin, fair_weight="2", reason="first")
    with pytest.raises(Conflict) as caught:
        services.save_queue_policy(queue, {"fair_weight": "0.5"}, actor=lead, expected_version=seen)
    assert caught.value.changes == [{"field": "fair_weight", "before": "1", "after": "2"}]
    assert snapshot(queue)["fair_weight"] == "2"


def test_the_api_answers_409_with_the_changes(queue, admin):
    from testkit.clients import api_as

    seen = snapshot(queue)["version"]
    set_policy(queue, admin, quotas=[quota("h100", "20"), quota("a100", "8")])
    response = api_as(admin).patch(
        f"/api/v1/queues/{queue.pk}/", {"version": seen, "fair_weight": "3"}, format="json"
    )
    assert response.status_code == 409
    body = response.json()
    assert body["current_version"] == seen + 1
    assert {"field": "quotas[h100/nvidia.com/gpu].nominal", "before": "16", "after": "20"} in body[
        "changes_since_your_version"
    ]


def test_the_edit_page_shows_the_conflict_and_keeps_the_input(client, queue, admin):
    seen = snapshot(queue)["version"]
    set_policy(queue, admin, fair_weight="2")
    client.force_login(admin)
    form = {
        "version": seen,
        "fair_weight": "0.7",
        "queueing_strategy": "BestEffortFIFO",
        "stop_policy": "None",
        "reclaim_within_cohort": "Never",
        "within_cluster_queue": "Never",
        "borrow_within_cohort": "Never",
        "cohort": "research",
        "q|h100|nvidia.com/gpu|nominal": "16",
        "save": "1",
    }
    response = client.post(f"/queues/{queue.pk}/edit/", form)
    assert response.status_code == 409
    assert b"changed by someone else" in response.content
    assert b'value="0.7"' in response.content


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_concurrent_saves_from_the_same_version_let_exactly_one_win(catalog, team):
    from testkit.factories import make_queue

    queue = make_queue(catalog, team, cohort="research", quotas=[quota("h100", "8")])
    version = snapshot(queue)["version"]
    results: list[str] = []
    barrier = threading.Barrier(8)

    def edit(weight: str) -> None:
        barrier.wait()
        try:
            services.save_queue_policy(
                queue, {"fair_weight": weight}, actor=catalog, expected_version=version
            )
            results.append("saved")
        except Conflict:
            results.append("conflict")
        finally:
            close_old_connections()

    threads = [threading.Thread(target=edit, args=(str(n + 2),)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == ["conflict"] * 7 + ["saved"]
    assert Queue.objects.get(pk=queue.pk).version == version + 1


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_concurrent_quota_raises_on_different_queues_never_exceed_capacity(
    catalog, team, other_team
):
    from core.errors import InvalidInput
    from testkit.factories import make_queue

    queues = [make_queue(catalog, t, quotas=[quota("h100", "0")]) for t in (team, other_team)]
    barrier = threading.Barrier(2)

    def raise_to_40(target) -> None:
        barrier.wait()
        try:
            set_policy(target, catalog, quotas=[quota("h100", "40")])
        except InvalidInput:
            pass
        finally:
            close_old_connections()

    threads = [threading.Thread(target=raise_to_40, args=(q,)) for q in queues]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    totals = [int(snapshot(q)["quotas"][0]["nominal"]) for q in queues]
    assert sum(totals) <= 64 and sorted(totals) == [0, 40]
