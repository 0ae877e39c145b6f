"""A batch job and a notebook are submitted, retried and ended alike: each submission
answers a Submission (the row, and whether an earlier request with the key made it),
and ending one answers True once, then False."""

import pytest

from apps.jobs.services import (
    JobRequest,
    NotebookRequest,
    Principal,
    Submission,
    cancel_job,
    request_notebook,
    stop_notebook,
    submit_job,
)
from testkit.notebooks import IMAGE

pytestmark = pytest.mark.django_db


@pytest.fixture
def submitters(scientist, queue, template, pool):
    me = Principal(scientist)
    job = JobRequest(template="pytorch-train", flavor="h100")
    notebook = NotebookRequest(image=IMAGE, flavor="h100")
    return {
        "job": lambda key: submit_job(scientist, job, actor=me, idempotency_key=key),
        "notebook": lambda key: request_notebook(
            scientist, notebook, actor=me, idempotency_key=key
        ),
    }


@pytest.mark.parametrize("kind", ["job", "notebook"])
def test_a_retry_with_the_key_gets_the_first_row_back(submitters, kind):
    first = submitters[kind]("k-1")
    again = submitters[kind]("k-1")
    other = submitters[kind]("k-2")
    assert isinstance(first, Submission) and isinstance(again, Submission)
    assert first.replayed is False and again.replayed is True and other.replayed is False
    assert again.record.pk == first.record.pk != other.record.pk
    assert (first.record.idempotency_key, other.record.idempotency_key) == ("k-1", "k-2")


def test_ending_a_job_or_a_notebook_says_whether_this_call_ended_it(submitters, scientist):
    me = Principal(scientist)
    job = submitters["job"]("").record
    notebook = submitters["notebook"]("").record
    assert [cancel_job(job, actor=me), cancel_job(job, actor=me)] == [True, False]
    assert [stop_notebook(notebook, actor=me), stop_notebook(notebook, actor=me)] == [True, False]
    job.refresh_from_db()
    notebook.refresh_from_db()
    assert not job.is_active and not notebook.is_active
