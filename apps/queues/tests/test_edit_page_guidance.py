"""Before anyone types, the edit page shows the room left under capacity per flavor and,
to a lead, the envelope.

Ground truth by hand (``catalog``: h100 64, a100 32): vision holds h100 16 and a100 8,
nlp h100 16, the shared queue ``burst`` a100 4.
"""

import pytest

from testkit.capacity import reserve_pool
from testkit.factories import make_queue, quota
from testkit.html_cells import row_starting

GPU = "nvidia.com/gpu"


@pytest.fixture
def burst(catalog):
    return make_queue(catalog, None, name="burst", quotas=[quota("a100", "4")])


def edit_page(client, user, queue) -> str:
    client.force_login(user)
    response = client.get(f"/queues/{queue.pk}/edit/")
    assert response.status_code == 200
    return response.content.decode()


def test_room_left_leaves_out_the_queue_itself_and_counts_every_other_reservation(
    client, admin, queue, other_queue, burst
):
    reserve_pool(admin, 2)  # the notebook pool: 2 a100
    page = edit_page(client, admin, queue)
    # h100: 64 − 16 (nlp) = 48; vision's own 16 is not subtracted
    assert row_starting(page, "", "h100", GPU)["Room left"] == "48"
    # a100: 32 − 4 (burst) − 2 (pool) = 26
    assert row_starting(page, "", "a100", GPU)["Room left"] == "26"
    # MIG slices: nobody reserves any of the 56
    assert row_starting(page, "", "", "nvidia.com/mig-1g.10gb")["Room left"] == "56"
    assert "Envelope: max nominal" not in page  # an admin has no envelope


def test_a_lead_sees_the_envelope_next_to_the_room_left(client, lead, queue, other_queue, envelope):
    page = edit_page(client, lead, queue)
    h100 = row_starting(page, "", "h100", GPU)
    assert (h100["Room left"], h100["Envelope: max nominal"]) == ("48", "24")
    assert h100["Envelope: max borrowing"] == "8"
    a100 = row_starting(page, "", "a100", GPU)
    # 32 − 0: nothing else reserves a100 here; the envelope names no a100 limit
    assert (a100["Room left"], a100["Envelope: max nominal"]) == ("32", "no increase")
    assert "Weight 0.5–2" in page


KUEUE_FIELDS = [
    "cohort",
    "fair_weight",
    "queueing_strategy",
    "stop_policy",
    "fair_between_users",
    "reclaim_within_cohort",
    "within_cluster_queue",
    "borrow_within_cohort",
    "borrow_max_priority_threshold",
    "order",
    "nominal",
    "borrowing_limit",
    "lending_limit",
]


def test_every_kueue_field_has_one_line_of_help_linking_its_kueue_doc(client, admin, queue):
    from apps.queues.forms import KUEUE_HELP

    page = edit_page(client, admin, queue)
    assert sorted(KUEUE_HELP) == sorted(KUEUE_FIELDS)
    for text, url in KUEUE_HELP.values():
        assert "\n" not in text and url.startswith("https://kueue.sigs.k8s.io/docs/concepts/")
        assert text.replace("'", "&#x27;") in page and f'href="{url}"' in page


def test_a_bad_value_is_refused_with_the_rule_and_a_valid_example(client, admin, queue):
    from apps.queues.tests.test_queue_edit_page import form_for

    client.force_login(admin)
    fields = {
        "q|h100|nvidia.com/gpu|lending_limit": "20",  # nominal is 16
        "q|a100|nvidia.com/gpu|nominal": "-1",
        "preview": "1",
    }
    page = client.post(f"/queues/{queue.pk}/edit/", form_for(queue, **fields)).content.decode()
    assert (
        "must not exceed the nominal quota (16) (Kueue rule: lendingLimit ≤ nominalQuota), e.g. 16"
        in page
    )
    assert "must not be negative (Kueue rule), e.g. 0" in page
