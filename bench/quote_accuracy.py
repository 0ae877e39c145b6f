"""Quote accuracy: a job stream quoted just before each submission, against what happened.

A generated busy load (``bench/quote_scoring.py``: seeded arrivals of 2-, 4- and 8-GPU
jobs of two templates, offered at more GPUs than the quota holds) goes, in real time,
into the simulated cluster (the subprocess the tests use, live controller) and into
the real control plane (kube-apiserver, the real Kueue, KWOK pods that end after the
job's run time), one after the other, each from an empty history. The policy is the
tests' catalog: vision 16 h100 + 8 a100, nlp 16 h100, both in cohort research; six
8-GPU nodes. Each job is quoted by the product's quote path (``quote_job``) and then
submitted (``submit_job``, ``cluster_sync.create_job``); a ``never`` job, which the
portal refuses, is rendered as the portal would and created in the cluster directly,
to see that Kueue never admits it either. The portal's status sync runs every second,
so finished jobs become the recorded run times later quotes estimate from.

The actual start is Kueue's first admission of the job's Workload (its ``Admitted``
condition, read every second); its end, the ``Finished`` condition. A wrong ``now`` is
told apart when another job ended between the quote and the admission. The naive
answer is the quote's time plus the mean wait (first admission minus submission, as the
portal recorded them) of the queue's jobs that started in the last ``--naive-window-s``
seconds.

    .venv/bin/python bench/quote_accuracy.py [--cluster sim|real|both] [--jobs 60] [--seed 1]
    .venv/bin/python bench/quote_accuracy.py --rescore /tmp/quote-accuracy-real.json

Uses (and recreates) the scratch PostgreSQL database ``qm_bench_quote_accuracy`` (or
``--database``).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import quote_scoring as scoring  # noqa: E402
from bench.whatif_fidelity import _recreate_database  # noqa: E402

BENCH_DB = "qm_bench_quote_accuracy"
NODES = 6


def setup_django(database: str = BENCH_DB) -> None:
    """Django on a freshly created scratch ``database``, migrated, without the demo."""
    os.environ["DATABASE_URL"] = _recreate_database(database)
    os.environ["QM_DATA_DIR"] = tempfile.mkdtemp()
    os.environ["QM_CLUSTER_SYNC"] = "false"  # no Celery: the bench creates the Jobs itself
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def load_policy() -> dict:
    """The tests' catalog (vision, nlp in cohort research) and a scientist per team."""
    from apps.jobs.models import JobTemplate
    from apps.jobs.services.pool import save_setting
    from apps.queues import services
    from core.roles import TeamRole
    from testkit.factories import UserFactory, make_admin, make_flavor, make_queue, make_team
    from testkit.factories import quota as q

    admin = make_admin()
    make_flavor(admin, "h100", {"nvidia.com/gpu": "64"})
    make_flavor(admin, "a100", {"nvidia.com/gpu": "32"})
    services.save_cohort(name="research", actor=admin)
    services.save_priority_tier(name="p2-standard", value=100, actor=admin)
    quotas = {"vision": [q("h100", "16"), q("a100", "8")], "nlp": [q("h100", "16")]}
    users = {}
    for slug, team_quotas in quotas.items():
        team = make_team(admin, slug)
        make_queue(admin, team, cohort="research", quotas=team_quotas)
        users[slug] = UserFactory(username=f"sci-{slug}")
        services.add_membership(team=team, user=users[slug], role=TeamRole.SCIENTIST, actor=admin)
    for name in scoring.RUN_S:
        template = JobTemplate(name=name, image="registry.example.com/ml/pytorch:2.4",
                               default_command=["python", f"{name}.py"])  # fmt: skip
        save_setting(template, actor=admin, created=True)
    return users


def start_cluster(kind: str, workdir: Path):
    """(cluster, stop) for ``kind``, the portal pointed at it."""
    from django.conf import settings

    if kind == "sim":
        from testkit.sim_cluster import SimCluster

        cluster = SimCluster(workdir).start()
        settings.KUBECONFIG = str(cluster.kubeconfig)
        return cluster, cluster.stop
    from realcluster.controlplane import ControlPlane
    from testkit.real_cluster import RealCluster

    plane = ControlPlane(workdir).up()
    print(f"real control plane up in {plane.startup_seconds:.0f} s", flush=True)
    settings.KUBECONFIG = str(plane.kubeconfig)
    return RealCluster(plane, plane.kubeconfig), plane.down


def prepare(cluster) -> None:
    """Nodes, the policy reconciled, and its ClusterQueues active."""
    from django.conf import settings

    from apps.queues.reconcile.run import reconcile
    from testkit.nodes import add_node
    from testkit.waiting import wait_until

    settings.KUEUE_API_VERSION = "v1beta2"
    for i in range(NODES):
        add_node(cluster, f"gpu-{i}")
    assert reconcile(trigger="manual").errors == []

    def active():
        queues = cluster.list("ClusterQueue")
        return len(queues) == 2 and all(_active(cq) for cq in queues)

    wait_until(active, 120, 1.0)


def _active(cluster_queue: dict) -> bool:
    from informer import objects as o

    return (o.condition(cluster_queue, "Active") or {}).get("status") == "True"


class Run:
    """One stream on one cluster: quotes, submissions, and what Kueue then did."""

    def __init__(self, users: dict, args):
        self.users, self.args = users, args
        self.outcomes: list[scoring.Outcome] = []

    def play(self, arrivals: list[scoring.Arrival]) -> None:
        began = time.monotonic()
        for arrival in arrivals:
            while time.monotonic() < began + arrival.at_s:
                self.tick()
                time.sleep(min(1.0, max(0.0, began + arrival.at_s - time.monotonic())))
            self.outcomes.append(self.quote_and_submit(arrival))
        deadline = time.monotonic() + self.args.drain_cap_s
        while not self.drained() and time.monotonic() < deadline:
            self.tick()
            time.sleep(1.0)
        time.sleep(self.args.now_within_s)  # a never job's last chance to be admitted
        self.tick()

    def drained(self) -> bool:
        return all(o.started or o.verdict == "never" for o in self.outcomes)

    def quote_and_submit(self, arrival: scoring.Arrival) -> scoring.Outcome:
        from django.utils import timezone

        from apps.jobs.services import JobRequest, Principal
        from apps.jobs.services.quotes import quote_job

        user = self.users[arrival.team]
        spec = JobRequest(template=arrival.template, flavor="h100", gpus_per_pod=arrival.gpus,
                          pods=arrival.pods, sim_duration_seconds=arrival.run_s)  # fmt: skip
        quoted_at = timezone.now()
        answer = quote_job(user, spec, actor=Principal(user)).as_dict()
        start = answer["estimated_start"] or {}
        outcome = scoring.Outcome(
            arrival, quoted_at, answer["verdict"], answer["flavors"], start.get("p50"),
            start.get("p90"), self.naive(arrival.team, quoted_at),
        )  # fmt: skip
        outcome.job = self.submit(user, spec, never=answer["verdict"] == "never")
        return outcome

    def submit(self, user, spec, *, never: bool) -> str:
        """The Job's name, created in the cluster: through the portal, or for a job the
        portal refuses, rendered from the one-pod job and created directly."""
        from dataclasses import replace

        from django.conf import settings
        from django.utils import timezone

        from apps.jobs import cluster_sync
        from apps.jobs.cluster import create_all
        from apps.jobs.manifests import job_manifest
        from apps.jobs.services import Principal, submit_job
        from apps.jobs.services.jobs import build_job
        from core.kube import KubeClient

        with KubeClient() as client:
            if not never:
                job, _ = submit_job(user, spec, actor=Principal(user))
                assert cluster_sync.create_job(client, job.pk) == "created"
                return job.name
            job = build_job(user, replace(spec, pods=1), actor=Principal(user), now=timezone.now())
            manifest = job_manifest(job, checkpoint_claim=settings.QM_CHECKPOINT_CLAIM)
            manifest["spec"]["parallelism"] = manifest["spec"]["completions"] = spec.pods
            create_all(client, [manifest])
            return job.name

    def naive(self, team: str, at):
        """The quote's time plus the queue's recent mean wait, from the portal's records."""
        from datetime import timedelta

        from apps.jobs.models import BatchJob

        rows = BatchJob.objects.filter(team__slug=team, admitted_at__isnull=False)
        waits = [(j.admitted_at, (j.admitted_at - j.created_at).total_seconds()) for j in rows]
        wait = scoring.naive_wait_s(waits, at, self.args.naive_window_s)
        return None if wait is None else at + timedelta(seconds=wait)

    def tick(self) -> None:
        """The portal's status sync, then each Workload's first admission seen."""
        from django.utils import timezone

        from apps.jobs import cluster_sync
        from core.kube import KubeClient
        from informer import objects as o
        from informer.kinds import workload_ref
        from kueuemodel import parse_timestamp

        with KubeClient() as client:
            cluster_sync.sync_status(client, now=timezone.now())
            by_job = {o.owner(w)[1]: w for w in client.list(workload_ref())}
        for out in self.outcomes:
            admitted = o.condition(by_job.get(out.job), "Admitted") or {}
            if out.started is None and admitted.get("status") == "True":
                out.started = _moment(parse_timestamp(admitted["lastTransitionTime"]))
                out.started_flavors = o.flavors_by_pod_set(by_job[out.job])
            finished = o.condition(by_job.get(out.job), "Finished") or {}
            if out.ended is None and finished.get("status") == "True":
                out.ended = _moment(parse_timestamp(finished["lastTransitionTime"]))


def _moment(at_ms: int):
    from datetime import UTC, datetime

    return datetime.fromtimestamp(at_ms / 1000, tz=UTC)


def run_on(kind: str, users: dict, arrivals: list[scoring.Arrival], args) -> None:
    from apps.jobs.models import BatchJob

    BatchJob.objects.all().delete()  # each cluster from an empty history
    load = os.getloadavg()[0]
    cluster, stop = start_cluster(kind, Path(tempfile.mkdtemp(prefix=f"quote-{kind}-")))
    try:
        prepare(cluster)
        began = time.perf_counter()
        run = Run(users, args)
        run.play(arrivals)
        wall = time.perf_counter() - began
    finally:
        stop()
    print(f"\n{kind}: {len(arrivals)} jobs in {wall:.0f} s; load {load:.2f} -> "
          f"{os.getloadavg()[0]:.2f}")  # fmt: skip
    kept = Path(args.keep) / f"quote-accuracy-{kind}.json"
    kept.parent.mkdir(
        parents=True, exist_ok=True
    )  # a run's outcomes are never lost to a missing folder
    kept.write_text(scoring.dumps(run.outcomes))
    print(f"  outcomes kept in {kept}")
    report(run.outcomes, args)


def report(outcomes: list[scoring.Outcome], args) -> None:
    for line in scoring.summary(outcomes, args.now_within_s):
        print(f"  {line}")
    for out in outcomes:
        if scoring.verdict_right(out, args.now_within_s) is False:
            print(f"  wrong: {out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cluster", choices=("sim", "real", "both"), default="both")
    parser.add_argument("--jobs", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--mean-gap-s", type=float, default=6.0)
    parser.add_argument("--never-every", type=int, default=10, help="every n-th asks too much")
    parser.add_argument("--naive-window-s", type=float, default=300)
    parser.add_argument("--now-within-s", type=float, default=10, help="how soon a now starts")
    parser.add_argument("--drain-cap-s", type=float, default=600)
    parser.add_argument("--keep", default=tempfile.gettempdir(), help="where outcomes are kept")
    parser.add_argument("--rescore", type=Path, help="score kept outcomes again; no cluster")
    parser.add_argument("--database", default=BENCH_DB, help="the scratch database (recreated)")
    args = parser.parse_args()
    if args.rescore:
        report(scoring.loads(args.rescore.read_text()), args)
        return
    setup_django(args.database)
    users = load_policy()
    arrivals = scoring.stream(args.jobs, args.seed, args.mean_gap_s, args.never_every)
    gpu_s = sum(a.gpus * a.pods * a.run_s for a in arrivals if not a.never)
    print(f"{len(arrivals)} arrivals over {arrivals[-1].at_s:.0f} s, seed {args.seed}: "
          f"{gpu_s / max(arrivals[-1].at_s, 1):.1f} GPUs offered on average against 40 of quota")  # fmt: skip
    for kind in ("sim", "real") if args.cluster == "both" else (args.cluster,):
        run_on(kind, users, arrivals, args)


if __name__ == "__main__":
    main()
