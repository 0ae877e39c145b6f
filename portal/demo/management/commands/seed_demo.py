"""``manage.py seed_demo``: the portal's side of the demo, on the first start only.

The demo policy, teams, users and notebook pool (``seed_demo_once``: a database that
already has them, or any users, is left exactly as it is), then one reconcile so the
simulated cluster's queues, labelled as ours, are adopted. The week itself is played by
the simulated cluster behind the running portal (``python -m simcluster serve
--seed-history DAYS``, which ``make run`` starts) and recorded as it happens by the
worker's history recorder; ``finish_demo_week`` builds its reports when it is done.
"""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand

from apps.queues.reconcile.run import reconcile
from core.retrying import report_to, retry_transient
from informer.tasks import run_informer_task
from portal.demo.management.commands.load_demo import seed_or_explain


class Command(BaseCommand):
    help = "Load the demo (first start only) and sync its policy to the cluster."

    def handle(self, *args, **options) -> None:
        if not seed_or_explain(self):
            # A restart: the worker's schedule reconciles, records and builds reports.
            return
        if not settings.QM_CLUSTER_SYNC:
            self.stdout.write("cluster sync is off: nothing to reconcile")
            return
        # The cluster may still be coming up (or restarting): wait it out, not fail the start.
        summary = retry_transient(
            lambda: reconcile(trigger="seed_demo"), on_retry=report_to(self.stderr.write)
        )
        self.stdout.write(f"reconciled: {summary.as_dict()}")
        # The cluster plays the demo week no faster than its Workload watchers follow:
        # queue the informer (recorder and status watch) for the worker's first moment
        # instead of beat's first interval a minute later (a second run skips the lease).
        run_informer_task.delay()
