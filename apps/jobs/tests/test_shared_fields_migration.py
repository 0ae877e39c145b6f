"""Moving the shared fields onto the base keeps every row's values, and a job submitted
before jobs had ``requested_by`` counts as asked for by its owner."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from apps.jobs.models import BatchJob, Notebook
from apps.jobs.services import JobRequest, NotebookRequest, Principal, request_notebook, submit_job
from testkit.notebooks import IMAGE

pytestmark = [pytest.mark.django_db(transaction=True)]
BEFORE = ("jobs", "0002_event_lost_since")
AFTER = ("jobs", "0003_shared_submission_fields")
SHARED = ("owner_id", "team_id", "cpu", "memory", "idempotency_key", "namespace", "name")


def migrate(target: tuple[str, str]) -> None:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate([target])


@pytest.fixture(autouse=True)
def back_to_the_latest_schema():
    """Later migrations add columns the models read: every test after this one needs them."""
    yield
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())


def values(model, pk: int) -> dict:
    return model.objects.filter(pk=pk).values(*SHARED).get()


def test_rows_keep_their_values_and_jobs_get_their_owner_as_requester(
    scientist, queue, template, pool
):
    me = Principal(scientist)
    job = submit_job(
        scientist,
        JobRequest(template="pytorch-train", flavor="h100"),
        actor=me,
        idempotency_key="j",
    ).record
    BatchJob.objects.filter(pk=job.pk).update(cpu="8", memory="64Gi")
    notebook = request_notebook(
        scientist, NotebookRequest(image=IMAGE, flavor="h100"), actor=me, idempotency_key="n"
    ).record
    before = {"job": values(BatchJob, job.pk), "notebook": values(Notebook, notebook.pk)}

    migrate(BEFORE)
    migrate(AFTER)

    assert {"job": values(BatchJob, job.pk), "notebook": values(Notebook, notebook.pk)} == before
    assert before["job"]["cpu"] == "8" and before["notebook"]["memory"] != ""
    # Only the columns of 0003: the model may have more from later migrations.
    migrated = BatchJob.objects.filter(pk=job.pk).values("requested_by_id", "via_token_id").get()
    assert migrated == {"requested_by_id": scientist.pk, "via_token_id": None}
