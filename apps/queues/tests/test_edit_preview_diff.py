"""The edit page's preview diff is the one the save would apply, or none when it would
be refused: never a change the save would not make."""

import html

from apps.queues.tests.test_queue_edit_page import form_for
from testkit.factories import snapshot

H100 = "q|h100|nvidia.com/gpu|nominal"
H100_REMOVED = "-    - name: h100"  # the unified diff line of a flavor leaving the ClusterQueue
DIFF_HEADING = "Kueue objects this save would change"


def preview(client, queue, **fields) -> str:
    response = client.post(f"/queues/{queue.pk}/edit/", form_for(queue, preview="1", **fields))
    assert response.status_code == 200
    return html.unescape(response.content.decode())


def test_h100_past_capacity_shows_the_error_and_no_diff(client, queue, other_queue, admin):
    client.force_login(admin)
    before = snapshot(queue)
    # nlp holds 16 of the 64 h100: 49 + 16 = 65 > 64
    page = preview(client, queue, **{H100: "49"})

    assert "above the physical capacity of 64" in page
    assert "e.g. nominal 48 fits" in page
    assert H100_REMOVED not in page and "name: h100" not in page
    assert DIFF_HEADING not in page
    assert "would be refused" in page
    assert 'value="49"' in page  # the draft is kept in the form for the user to fix
    assert snapshot(queue) == before


def test_the_same_draft_with_an_override_reason_previews_what_the_save_applies(
    client, queue, other_queue, admin
):
    client.force_login(admin)
    page = preview(client, queue, **{H100: "49", "capacity_override_reason": "new nodes Monday"})

    assert DIFF_HEADING in page
    assert "+        nominalQuota: '49'" in page and H100_REMOVED not in page
    assert "would be refused" not in page


def test_a_valid_draft_previews_the_changed_quota_and_keeps_the_flavor(
    client, queue, other_queue, admin
):
    client.force_login(admin)
    page = preview(client, queue, **{H100: "48"})  # 48 + 16 = 64, exactly full

    assert DIFF_HEADING in page
    assert "-        nominalQuota: '16'" in page and "+        nominalQuota: '48'" in page
    assert H100_REMOVED not in page
