"""The timeline on the job and notebook pages, from what each recorded (times by hand)."""

import json
import re
from datetime import timedelta

import pytest

from apps.jobs.choices import JobEventKind
from apps.jobs.models import JobEvent, Notebook
from apps.jobs.services import JobRequest, Principal, submit_job
from testkit.notebooks import IMAGE

pytestmark = pytest.mark.django_db


def timeline_on(page: str) -> dict:
    found = re.search(r'<script id="timeline-data" type="application/json">(.*?)</script>', page)
    return json.loads(found.group(1))


def bars(spec: dict) -> dict:
    return {t["name"]: list(zip(t.get("base", t["x"]), t["x"], strict=True)) for t in spec["data"]}


def test_the_job_page_draws_queued_admitted_evicted_re_admitted_finished(
    client, scientist, queue, template
):
    job, _ = submit_job(
        scientist, JobRequest(template="pytorch-train", flavor="h100"), actor=Principal(scientist)
    )
    submitted = job.events.get().at.replace(microsecond=0)
    job.events.update(at=submitted)

    def event(kind, minutes, key):
        at = submitted + timedelta(minutes=minutes)
        JobEvent.objects.create(job=job, at=at, kind=kind, key=key)

    event(JobEventKind.ADMITTED, 5, "a1")
    event(JobEventKind.PREEMPTED, 20, "p1")
    event(JobEventKind.REQUEUED, 21, "r1")
    event(JobEventKind.ADMITTED, 30, "a2")
    event(JobEventKind.FINISHED, 50, "f1")
    client.force_login(scientist)
    spec = timeline_on(client.get(f"/jobs/{job.pk}/").content.decode())

    def utc(minutes):
        return f"{submitted + timedelta(minutes=minutes):%Y-%m-%d %H:%M:%S}"

    # queued 0–5 (5 min = 300,000 ms), admitted 5–20 (15 min), evicted 20–30 (10 min),
    # re-admitted 30–50 (20 min), finished at 50.
    assert bars(spec) == {
        "queued": [(utc(0), 300_000.0)],
        "admitted": [(utc(5), 900_000.0)],
        "evicted, waiting": [(utc(20), 600_000.0)],
        "re-admitted": [(utc(30), 1_200_000.0)],
        "finished": [(utc(50), utc(50))],
    }


def test_the_notebook_page_draws_its_wait_and_its_run(client, scientist, pool):
    client.force_login(scientist)
    body = {"image": IMAGE, "flavor": "h100", "gpus": 1, "profile": "standard",
            "ttl_hours": 4, "team": "vision"}  # fmt: skip
    client.post("/notebooks/new/", body)
    notebook = Notebook.objects.get()
    created = notebook.created_at.replace(microsecond=0)
    ready, ended = created + timedelta(minutes=2), created + timedelta(minutes=62)
    Notebook.objects.filter(pk=notebook.pk).update(
        created_at=created, ready_at=ready, ended_at=ended
    )
    spec = timeline_on(client.get(f"/notebooks/{notebook.pk}/").content.decode())
    # queued 2 min = 120,000 ms; running 60 min = 3,600,000 ms; ended at +62 min.
    assert bars(spec) == {
        "queued": [(f"{created:%Y-%m-%d %H:%M:%S}", 120_000.0)],
        "admitted": [(f"{ready:%Y-%m-%d %H:%M:%S}", 3_600_000.0)],
        "ended": [(f"{ended:%Y-%m-%d %H:%M:%S}", f"{ended:%Y-%m-%d %H:%M:%S}")],
    }
