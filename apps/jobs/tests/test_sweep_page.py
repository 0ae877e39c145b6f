"""The sweep pages: submit from the form, see progress, cancel the rest."""

import re

import pytest

from apps.jobs.choices import SweepState
from apps.jobs.models import BatchJob, Sweep, SweepLimit
from apps.queues.models import AuditEntry

pytestmark = pytest.mark.django_db

FORM = {
    "template": "pytorch-train",
    "command": "python train.py",
    "flavor": "h100",
    "gpus_per_pod": "1",
    "pods": "1",
    "priority_tier": "p3-low",
    "max_runtime_minutes": "60",
    "team": "vision",
    "display_name": "lr sweep",
    "grid": '{"lr": ["0.1", "0.01", "0.001"]}',
}


def counts(html: str) -> list[str]:
    """The numbers of the progress table: done, running, waiting, failed, cancelled, trials."""
    table = html.split('id="progress"')[1].split("</table>")[0]
    return re.findall(r'<td class="num">(\d+)</td>', table)


def test_a_sweep_submitted_from_the_form_shows_its_progress_and_cancels(
    client, scientist, queue, template
):
    client.force_login(scientist)
    response = client.post("/sweeps/new/", FORM)
    sweep = Sweep.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/sweeps/{sweep.pk}/"
    page = client.get(f"/sweeps/{sweep.pk}/").content.decode()
    # 3 trials, limit 2: 2 released (submitted) and 1 not yet, all waiting
    assert counts(page) == ["0", "0", "3", "0", "0", "3"]
    assert "--lr=0.001" in page and "not released yet" in page

    client.post(f"/sweeps/{sweep.pk}/cancel/")
    sweep.refresh_from_db()
    assert sweep.state == SweepState.CANCELLED
    page = client.get(f"/sweeps/{sweep.pk}/").content.decode()
    assert counts(page) == ["0", "0", "0", "0", "3", "3"]
    assert "Cancel the rest" not in page and BatchJob.objects.count() == 2


def test_bad_json_is_refused_on_the_form_naming_the_field(client, scientist, queue, template):
    client.force_login(scientist)
    response = client.post("/sweeps/new/", {**FORM, "grid": "{lr: 1}"})
    assert response.status_code == 200
    assert "this is JSON, e.g." in response.content.decode()
    assert not Sweep.objects.exists()


def sweep_rows(html: str) -> list[list[str]]:
    """Per sweep of the list: done, running, waiting, failed, cancelled, trials, at once."""
    table = html.split('id="sweeps"')[1].split("</table>")[0]
    return [re.findall(r'<td class="num">(\d+)</td>', row) for row in table.split("<tr>")[2:]]


def test_the_sweep_list_shows_each_sweeps_progress_and_scope(
    client, scientist, lead, queue, template
):
    client.force_login(scientist)
    client.post("/sweeps/new/", FORM)  # 3 trials, the team's default limit of 2
    client.force_login(lead)
    client.post("/sweeps/new/", {**FORM, "grid": '{"seed": [1, 2]}', "concurrency_limit": "1"})
    client.post(f"/sweeps/{Sweep.objects.get(owner=lead).pk}/cancel/")

    team_page = client.get("/sweeps/").content.decode()
    # newest first: the lead's (2 trials, 1 released then cancelled, 1 never released:
    # both cancelled), then the scientist's (3 waiting, 2 of them released)
    assert sweep_rows(team_page) == [
        ["0", "0", "0", "0", "2", "2", "1"],
        ["0", "0", "3", "0", "0", "3", "2"],
    ]
    mine = client.get("/sweeps/?scope=mine").content.decode()
    assert sweep_rows(mine) == [["0", "0", "0", "0", "2", "2", "1"]]


def test_a_lead_sets_the_limit_per_user_on_its_page(client, lead, scientist, team):
    client.force_login(scientist)
    assert client.post(f"/sweeps/limits/{team.slug}/", {"per_user": "3"}).status_code == 403
    page = client.get(f"/sweeps/limits/{team.slug}/").content.decode()
    assert "<button" not in page.split("</table>")[1]  # scientists read, no form

    client.force_login(lead)
    response = client.post(f"/sweeps/limits/{team.slug}/", {"per_user": "9"})
    # out of the default envelope of 8: the rule and an example, nothing written
    assert response.status_code == 200
    assert "per_user must be 1–8 (the team&#x27;s envelope, max_per_user), e.g. 2" in (
        response.content.decode()
    )
    assert not SweepLimit.objects.exists()
    # a lead may not set the envelope: the form has no such field, so it is ignored
    response = client.post(f"/sweeps/limits/{team.slug}/", {"per_user": "3", "max_per_user": "50"})
    assert response.status_code == 302
    limit = SweepLimit.objects.get(team=team)
    assert (limit.per_user, limit.max_per_user) == (3, 8)
    assert AuditEntry.objects.filter(reason="sweep limit per user").count() == 1


def test_an_admin_lowers_the_envelope_and_the_limit_follows(client, admin, team):
    client.force_login(admin)
    client.post(f"/sweeps/limits/{team.slug}/", {"per_user": "5"})
    client.post(f"/sweeps/limits/{team.slug}/", {"max_per_user": "4"})
    limit = SweepLimit.objects.get(team=team)
    assert (limit.per_user, limit.max_per_user) == (4, 4)  # min(5, the new envelope 4)
