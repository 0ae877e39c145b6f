"""The sweep pages: submit from the form, see progress, cancel the rest."""

import re

import pytest

from apps.jobs.choices import SweepState
from apps.jobs.models import BatchJob, Sweep

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
