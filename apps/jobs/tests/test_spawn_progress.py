"""Spawn progress: queued → admitted → pod scheduled → ready, from the recorded state."""

import pytest

from apps.jobs.choices import NotebookState
from apps.jobs.models import Notebook
from apps.jobs.progress import spawn_progress
from apps.jobs.services import NotebookRequest, Principal, request_notebook
from testkit.notebooks import IMAGE

UNSCHEDULABLE = "admitted but unschedulable: no node has 1 free nvidia.com/gpu"


def statuses(state: str, reason: str = "") -> list[tuple[str, str]]:
    return [(s.key, s.status) for s in spawn_progress(state, reason)]


def test_each_state_marks_how_far_it_got():
    assert statuses(NotebookState.REQUESTED) == [
        ("queued", "current"), ("admitted", "todo"), ("scheduled", "todo"), ("ready", "todo")
    ]  # fmt: skip
    assert statuses(NotebookState.QUEUED, "waiting for quota in pool") == [
        ("queued", "done"), ("admitted", "current"), ("scheduled", "todo"), ("ready", "todo")
    ]  # fmt: skip
    assert statuses(NotebookState.STARTING) == [
        ("queued", "done"), ("admitted", "done"), ("scheduled", "current"), ("ready", "todo")
    ]  # fmt: skip
    assert statuses(NotebookState.READY) == [
        ("queued", "done"), ("admitted", "done"), ("scheduled", "done"), ("ready", "done")
    ]  # fmt: skip


def test_an_admitted_pod_no_node_takes_is_the_blocked_step_with_the_reason():
    steps = spawn_progress(NotebookState.STARTING, UNSCHEDULABLE)
    blocked = [s for s in steps if s.status == "blocked"]
    assert [(s.key, s.detail) for s in blocked] == [("scheduled", UNSCHEDULABLE)]


@pytest.mark.parametrize("state", [NotebookState.STOPPED, NotebookState.CULLED, "failed"])
def test_an_ended_notebook_has_no_progress(state):
    assert spawn_progress(state) == []


@pytest.mark.django_db
def test_the_page_shows_the_steps_while_it_starts(client, scientist, pool):
    notebook = request_notebook(
        scientist, NotebookRequest(image=IMAGE, flavor="h100"), actor=Principal(scientist)
    ).record
    Notebook.objects.filter(pk=notebook.pk).update(
        state=NotebookState.STARTING, pending_reason=UNSCHEDULABLE
    )
    client.force_login(scientist)
    page = client.get(f"/notebooks/{notebook.pk}/").content.decode()
    assert '<li class="step done">✓ Admitted by Kueue (quota reserved)' in page
    assert '<li class="step blocked">✗ Pod scheduled and starting' in page
    assert "Admitted but unschedulable: no node has 1 free nvidia.com/gpu" in page
    Notebook.objects.filter(pk=notebook.pk).update(state=NotebookState.READY, pending_reason="")
    assert "data-spawn-progress" not in client.get(f"/notebooks/{notebook.pk}/").content.decode()
