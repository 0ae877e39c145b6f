"""Job status and the history recorder follow the same Workload watch: one informer run
moves a job to Running and records its Workload's admission, with one Workload cursor."""

from __future__ import annotations

import pytest

from apps.jobs.choices import JobState
from apps.jobs.models import BatchJob
from apps.jobs.tests.test_status_watch import in_state, train, watching
from apps.queues.reconcile.run import reconcile
from apps.reports.models import WorkloadTransition
from informer.models import WatchCursor
from testkit.waiting import wait_until

pytestmark = [pytest.mark.postgres_only, pytest.mark.django_db(transaction=True)]


def test_status_and_history_come_from_one_workload_watch(sim, pool, queue, scientist, template):
    reconcile(trigger="manual")
    with watching(seconds=20):
        job = train(scientist, 0)
        running = wait_until(in_state(BatchJob, job.pk, JobState.RUNNING), timeout=60)

        def recorded() -> set[str]:
            rows = WorkloadTransition.objects.filter(workload__name=running.workload_name)
            return set(rows.values_list("type", flat=True))

        wait_until(lambda: {"created", "quota_reserved", "admitted"} <= recorded(), timeout=60)
    workload_cursors = WatchCursor.objects.filter(name__contains="workloads")
    assert list(workload_cursors.values_list("name", flat=True)) == ["workloads"]
