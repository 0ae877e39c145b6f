"""The change request page: the Kueue diff, a what-if of the change, and Withdraw for the
requester only (button and service alike)."""

import pytest

from apps.queues import services
from apps.queues.choices import ChangeRequestStatus
from apps.queues.reconcile.preview import manifest_field_changes
from apps.whatif.models import WhatIfRun
from core.errors import NotAllowed
from testkit.factories import quota, set_policy

WITHDRAW = 'value="withdraw"'


@pytest.fixture
def change_request(queue, lead, envelope):
    return set_policy(queue, lead, quotas=[quota("h100", "40"), quota("a100", "8")]).change_request


def test_only_the_requester_sees_withdraw(client, change_request, lead, admin):
    client.force_login(admin)
    page = client.get(f"/change-requests/{change_request.pk}/").content.decode()
    assert WITHDRAW not in page and 'value="approve"' in page
    client.force_login(lead)
    assert WITHDRAW in client.get(f"/change-requests/{change_request.pk}/").content.decode()


def test_the_service_refuses_a_withdraw_by_anyone_but_the_requester(client, change_request, admin):
    with pytest.raises(NotAllowed, match="only the person who filed this request"):
        services.withdraw_change_request(change_request, actor=admin)
    client.force_login(admin)
    response = client.post(
        f"/change-requests/{change_request.pk}/decide/", {"decision": "withdraw"}
    )
    assert response.status_code == 403
    change_request.refresh_from_db()
    assert change_request.status == ChangeRequestStatus.PENDING


def test_the_page_shows_the_cluster_queue_fields_that_would_change(client, change_request, admin):
    client.force_login(admin)
    response = client.get(f"/change-requests/{change_request.pk}/")
    rows = {row["field"]: row for row in response.context["kueue_changes"]}
    nominal = "resourceGroups[0].flavors[h100].resources[nvidia.com/gpu].nominalQuota"
    assert (rows[nominal]["before"], rows[nominal]["after"]) == ("16", "40")
    assert list(rows) == [nominal]  # a100 stays 8: nothing else changes
    assert nominal in response.content.decode()


def test_field_changes_key_named_list_items_by_name():
    before = {"flavors": [{"name": "a", "q": 1}, {"name": "b", "q": 2}]}
    after = {"flavors": [{"name": "b", "q": 3}]}
    assert manifest_field_changes(before, after) == [
        {"field": "flavors[a].name", "before": "a", "after": None},
        {"field": "flavors[a].q", "before": 1, "after": None},
        {"field": "flavors[b].q", "before": 2, "after": 3},
    ]


def test_the_what_if_button_replays_the_requested_change(client, change_request, lead, scientist):
    client.force_login(scientist)
    page = client.get(f"/change-requests/{change_request.pk}/").content.decode()
    assert "/whatif/" not in page
    assert client.post(f"/change-requests/{change_request.pk}/whatif/").status_code == 403
    client.force_login(lead)
    assert (
        f"/change-requests/{change_request.pk}/whatif/"
        in client.get(f"/change-requests/{change_request.pk}/").content.decode()
    )
    response = client.post(f"/change-requests/{change_request.pk}/whatif/")
    run = WhatIfRun.objects.get(requested_by=lead)
    assert response.status_code == 302 and response["Location"] == f"/whatif/{run.pk}/"
    assert run.draft["vision"]["quotas"][0]["nominal"] in ("40", 40)
    assert run.changes["vision"]["changes"] == change_request.changes
