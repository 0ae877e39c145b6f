"""In a real browser: a scientist watches a notebook's spawn progress, opens it (the
portal's explainer, no URL template being set), renews it for chosen hours and stops it
after confirming. Screenshots of each step land in test-artifacts/."""

from datetime import UTC

import pytest
from django.utils import timezone

from apps.jobs import cluster_sync
from apps.jobs.choices import NotebookState
from apps.jobs.models import Notebook
from apps.queues.reconcile.run import reconcile
from core.kube import KubeClient
from testkit.waiting import wait_until
from tests.e2e.browser import ARTIFACTS, sign_in

pytestmark = [pytest.mark.postgres_only, pytest.mark.django_db(transaction=True)]


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"notebook-{name}.png"), full_page=True)


def step(page, key: str) -> str:
    """The class of the progress step labelled ``key`` (done/current/blocked/todo)."""
    return page.locator("ol.progress li").nth(key).get_attribute("class")


def synced_until(notebook_pk: int, state: str) -> None:
    def attempt():
        with KubeClient() as client:
            cluster_sync.sync_status(client, now=timezone.now())
        return Notebook.objects.get(pk=notebook_pk).state == state

    wait_until(attempt, timeout=60, interval=0.2)


@pytest.mark.usefixtures("sim", "pool")
def test_progress_open_renew_and_a_confirmed_stop(page, live_server, scientist, settings):
    settings.QM_NOTEBOOK_URL_TEMPLATE = ""
    base = live_server.url
    reconcile(trigger="manual")
    sign_in(page, base, "scientist")
    page.goto(f"{base}/notebooks/new/")
    page.select_option("select[name=flavor]", "h100")
    page.click("button:has-text('Request')")
    page.wait_for_url(f"{base}/notebooks/*/")
    notebook = Notebook.objects.get(owner=scientist)
    assert step(page, 0) == "step current"  # queued: its objects are being created

    with KubeClient() as client:
        assert cluster_sync.provision_notebook(client, notebook.pk) == "created"
    page.reload()
    assert [step(page, i) for i in range(4)] == [
        "step done", "step current", "step todo", "step todo"
    ]  # fmt: skip
    shot(page, "progress")

    synced_until(notebook.pk, NotebookState.READY)
    page.reload()
    assert page.locator("ol.progress").count() == 0
    page.click("a:has-text('Open')")
    page.wait_for_selector("[data-open-explainer]")
    assert "QM_NOTEBOOK_URL_TEMPLATE" in page.inner_text("[data-open-explainer]")
    shot(page, "open-explainer")

    page.goto(f"{base}/notebooks/{notebook.pk}/")
    due = Notebook.objects.get(pk=notebook.pk).expires_at
    page.fill("input[name=hours]", "30")  # the pool allows 24: the field itself refuses it
    page.click("button:has-text('Renew')")
    assert page.eval_on_selector("input[name=hours]", "e => e.validity.rangeOverflow")
    assert Notebook.objects.get(pk=notebook.pk).expires_at == due
    page.fill("input[name=hours]", "3")
    page.click("button:has-text('Renew')")
    page.wait_for_selector(".flash.success")
    notebook.refresh_from_db()
    assert page.inner_text(".flash.success") == (
        f"Renewed until {notebook.expires_at.astimezone(UTC):%Y-%m-%d %H:%M} UTC."
    )

    page.click("button:has-text('Stop…')")
    page.wait_for_selector("button:has-text('Yes, stop it')")
    assert Notebook.objects.get(pk=notebook.pk).state == NotebookState.READY  # only asked
    shot(page, "stop-confirmation")
    page.click("button:has-text('Yes, stop it')")
    page.wait_for_url(f"{base}/notebooks/{notebook.pk}/")
    assert page.locator("h1 .badge").inner_text() == "Stopped"
