"""In a real browser, with a real Celery worker: a lead drafts a weight change, reads its
predicted effect per team, and applies it; beyond the envelope an admin approves it."""

import pytest

from apps.queues.models import Queue
from apps.queues.reconcile.desired import load_state
from apps.whatif.models import WhatIfRun
from apps.whatif.policies import policy_objects
from testkit.history_traces import history_trace, record_history
from tests.e2e.browser import ARTIFACTS, approve_as_admin, sign_in

pytestmark = [pytest.mark.postgres_only, pytest.mark.django_db(transaction=True)]


def test_a_lead_drafts_a_weight_change_reads_its_effect_and_applies_it_through_approval(
    page, live_server, queue, other_queue, lead, envelope, admin, replay_worker, settings
):
    settings.QM_KUEUE_FAIR_SHARING = True
    record_history(policy_objects(load_state(), fair_sharing=True), history_trace())
    sign_in(page, live_server.url, "lead")
    page.goto(f"{live_server.url}/queues/{queue.pk}/edit/")
    page.fill("input[name=fair_weight]", "3")  # the envelope allows 0.5–2
    page.click("button[name=whatif]")
    page.wait_for_url(f"{live_server.url}/whatif/*/")
    run = WhatIfRun.objects.get()
    assert run.draft["vision"]["fair_weight"] == "3"

    page.wait_for_selector("text=How far to trust this", timeout=120_000)
    draft_row = page.locator("table.diff tr", has_text="fair_weight")
    assert draft_row.locator("td.before").inner_text() == "1"
    assert draft_row.locator("td.after").inner_text() == "3"
    assert "applying it files a change request" in page.content()
    teams = page.locator("table.whatif tr[class^=verdict-] td:first-child").all_inner_texts()
    assert sorted(teams) == ["nlp", "vision"]
    assert "Replaying the recorded period under the" in page.content()
    assert Queue.objects.get(pk=queue.pk).fair_weight != "3"  # nothing applied by a preview
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "whatif-results.png"), full_page=True)

    page.click("button:has-text('Apply this draft')")
    assert "beyond your envelope, sent for approval" in page.content()
    assert Queue.objects.get(pk=queue.pk).fair_weight != "3"

    approve_as_admin(page, live_server.url, "the replay says nlp barely moves")
    assert "Approved and applied" in page.content()
    assert Queue.objects.get(pk=queue.pk).fair_weight == "3"
