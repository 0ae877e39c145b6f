"""A seeded world for the time-format tests: the demo's people and catalogue, a notebook,
a job, a what-if, this week's report; no cluster answers."""

from __future__ import annotations

import pytest
from django.utils import timezone

from apps.accounts.models import User
from apps.jobs.services import JobRequest, NotebookRequest, Principal, request_notebook, submit_job
from apps.reports.compute.weeks import week_of
from apps.reports.services import build_weekly_report
from portal.demo.seeding import load_everything
from testkit.clients import api_as


@pytest.fixture
def seeded_world(settings):
    """The demo's people and catalogue, a notebook, a job, a what-if, this week's report;
    no cluster answers (the live view reports it unreachable, with a time)."""
    settings.KUBECONFIG = "/nonexistent/kubeconfig"
    load_everything()
    alice, vera = User.objects.get(username="alice"), User.objects.get(username="vera")
    image = "quay.io/jupyter/pytorch-notebook:cuda12-python-3.11"
    request_notebook(
        alice, NotebookRequest(image=image, flavor="a100-80gb"), actor=Principal(alice)
    )
    submit_job(
        alice, JobRequest(template="pytorch-train", flavor="h100-80gb"), actor=Principal(alice)
    )
    draft = {
        "vision": {
            "quotas": [{"flavor": "h100-80gb", "resource": "nvidia.com/gpu", "nominal": "20"}]
        }
    }
    assert api_as(vera).post("/api/v1/whatif/", {"draft": draft}, format="json").status_code == 202
    build_weekly_report(week_of(timezone.now()))
    return User.objects.get(username="admin")
