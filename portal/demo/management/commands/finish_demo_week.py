"""``manage.py finish_demo_week --days 7``: the demo's reports, once its week is recorded.

``make run`` starts the portal at once on a first start while the simulated cluster plays
the demo week behind it; the history recorder watches the week as it happens. When the
week is done the launcher runs this: wait until the recorder has stored the last of it,
record the notebook the seeded cluster runs for alice (left idle: the idle-culling task
culls it a few minutes later), submit alice's demo sweep and ines's inference service
(once each), create the service's objects, sync job status once,
and build the weekly report
snapshots for the weeks the history covers. It changes nothing a user did. A cluster that
does not answer for a while (a timeout, a refused connection, a 5xx) is waited out with a
backoff; a permanent refusal exits with status 1 and says why.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from apps.jobs.cluster_sync import sync_status
from apps.jobs.inference_sync import create_inference
from apps.reports.catchup import wait_for_history
from apps.reports.compute.weeks import week_of
from apps.reports.services.snapshots import build_weekly_report
from core.kube import KubeClient, KubeError
from core.retrying import report_to, retry_transient
from portal.demo.inference import request_demo_inference
from portal.demo.notebooks import adopt_seeded_notebooks
from portal.demo.sweeps import submit_demo_sweep


class Command(BaseCommand):
    help = "After the demo week: wait for its history to be recorded, then build its reports."

    def add_arguments(self, parser):
        parser.add_argument("--days", type=float, default=7, help="history length to report on")
        parser.add_argument(
            "--wait-seconds", type=float, default=600, help="how long to wait for the recorder"
        )

    def handle(self, *args, days: float, wait_seconds: float, **options) -> None:
        if settings.QM_ENV == "production":
            # It adopts the notebooks it finds as the users their labels name: demo only.
            raise CommandError("finish_demo_week is for the demo (make run): QM_ENV=production")
        if not settings.QM_CLUSTER_SYNC:
            self.stdout.write("cluster sync is off: no history to record")
            return
        # A read timeout or a cluster restarting must not leave the demo without reports:
        # every step here is safe to run again, so the whole cluster part is retried.
        try:
            retry_transient(
                lambda: self._read_cluster(wait_seconds), on_retry=report_to(self.stderr.write)
            )
        except KubeError as exc:
            raise CommandError(f"the cluster refused: {exc.describe()}") from None
        for week in _weeks(days):
            build_weekly_report(week)
            self.stdout.write(f"report built for {week}")

    def _read_cluster(self, wait_seconds: float) -> None:
        with KubeClient() as client:
            caught_up = wait_for_history(client, timeout=wait_seconds)
            self.stdout.write(
                "history recorded"
                if caught_up
                else "the recorder is still behind; reports may miss the last events"
            )
            adopted = adopt_seeded_notebooks(client)
            self.stdout.write(f"notebooks adopted from the cluster: {adopted}")
            sweep = submit_demo_sweep()
            self.stdout.write(
                f"demo sweep: {sweep.trial_count} trials" if sweep else "no demo sweep"
            )
            service = request_demo_inference()
            if service is not None:
                # Created here too: the command may run before the worker takes the task.
                create_inference(client, service.pk)
            self.stdout.write(
                f"demo inference service: {service.name}" if service else "no demo service"
            )
            self.stdout.write(f"status synced: {sync_status(client, now=timezone.now())}")


def _weeks(days: float) -> list[str]:
    now = timezone.now()
    weeks = {week_of(now - timedelta(days=d)) for d in range(int(days) + 1)}
    return sorted(weeks)
