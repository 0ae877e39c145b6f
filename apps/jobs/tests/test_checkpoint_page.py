"""The job page says whether a restarted pod will find the job's checkpoints."""

from __future__ import annotations

import pytest
from django.test import override_settings

from apps.jobs.services import JobRequest, Principal, submit_job

pytestmark = pytest.mark.django_db


def _page(client, scientist) -> str:
    request = JobRequest(
        template="pytorch-train",
        flavor="h100",
        checkpoint_dir="runs/a",
        checkpoint_interval_minutes=15,
    )
    job, _ = submit_job(scientist, request, actor=Principal(scientist))
    client.force_login(scientist)
    return client.get(f"/jobs/{job.pk}/").content.decode()


@override_settings(QM_CHECKPOINT_STORAGE_CLASS="cephfs-rwx")
def test_with_a_storage_class_the_page_says_checkpoints_survive(client, scientist, queue, template):
    page = _page(client, scientist)
    assert "on the team's checkpoint volume" in page
    assert "on scratch space" not in page


@override_settings(QM_CHECKPOINT_STORAGE_CLASS="", QM_CHECKPOINT_CLAIM="")
def test_without_one_the_page_says_they_are_lost_on_restart(client, scientist, queue, template):
    page = _page(client, scientist)
    assert "on scratch space" in page and "QM_CHECKPOINT_STORAGE_CLASS" in page
