"""A quote's start estimate for a job that would wait, worked out by hand.

On the simulated cluster over HTTP: vision's queue has 8 h100 GPUs of its own; one 8-GPU
job holds them all, and the quoted 8-GPU job waits behind it. The jobs a test records
are submitted just now, so the portal's history is minutes old and the arrival rates are
counted over the shortest span (10 minutes) unless the test records older work.
"""

import math
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from apps.jobs import cluster_sync
from apps.jobs.arrival_history import Arrivals, counted_span
from apps.jobs.eta import (
    HORIZON_MS,
    MAX_ARRIVALS,
    ArrivalStream,
    arrival_times,
    arrivals_end_ms,
    early_gaps,
    in_reported_order,
)
from apps.jobs.models import JobTemplate
from apps.jobs.run_history import ExpectedRun
from apps.jobs.services import JobRequest, Principal, submit_job
from apps.jobs.services.pool import save_setting
from apps.jobs.tests.kit import record_runs, recording_since
from apps.queues.reconcile.run import reconcile
from core.kube import KubeClient
from informer import objects as o
from informer.kinds import workload_ref
from testkit.clients import api_as
from testkit.factories import quota, set_policy
from testkit.waiting import wait_until

pytestmark = pytest.mark.django_db

EIGHT = {"template": "pytorch-train", "flavor": "h100", "gpus_per_pod": 8}


def run_one(user, *, max_runtime_minutes: int = 60, count: int = 1) -> dict:
    """One more 8-GPU job created in the cluster; its Workload once Kueue has reserved
    quota for ``count`` of them (the oldest reserved Workload is returned)."""
    spec = JobRequest(**EIGHT, max_runtime_minutes=max_runtime_minutes, sim_duration_seconds=3600)
    job, _ = submit_job(user, spec, actor=Principal(user))
    with KubeClient() as client:
        assert cluster_sync.create_job(client, job.pk) == "created"

    def reserved():
        with KubeClient() as client:
            found = [w for w in client.list(workload_ref()) if o.is_reserved(w)]
        return len(found) == count and found[0]

    return wait_until(reserved, 30, 0.2)


def run_team_job(user, *, pods: int = 1, count: int = 1) -> dict:
    """One more 8-GPU-per-pod job of ``user``'s team created in the cluster; its Workload
    once Kueue has reserved quota for ``count`` Workloads in all."""
    spec = JobRequest(**EIGHT, pods=pods, sim_duration_seconds=3600)
    job, _ = submit_job(user, spec, actor=Principal(user))
    with KubeClient() as client:
        assert cluster_sync.create_job(client, job.pk) == "created"

    def reserved():
        found = [w for w in live_workloads() if o.is_reserved(w)]
        return len(found) == count and next(w for w in found if o.owner(w)[1] == job.name)

    return wait_until(reserved, 30, 0.2)


def live_workloads() -> list[dict]:
    with KubeClient() as client:
        return list(client.list(workload_ref()))


def reserved_at(workload: dict) -> datetime:
    stamp = o.condition(workload, "QuotaReserved")["lastTransitionTime"]
    return datetime.fromisoformat(stamp.replace("Z", "+00:00"))


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def quote_behind_a_running_job(user, **run) -> tuple[dict, datetime]:
    """The quote of EIGHT once one 8-GPU job holds the queue; that job's reservation."""
    started = reserved_at(run_one(user, **run))
    return api_as(user).post("/api/v1/quotes/", EIGHT, format="json").json(), started


def add_short_eval(admin) -> None:
    """A second template, for arrivals of another shape and tier."""
    eval_template = JobTemplate(name="short-eval", image="registry.example.com/ml/eval:1")
    save_setting(eval_template, actor=admin, created=True)


@pytest.fixture
def full_queue(sim, scientist, queue, template, admin):
    set_policy(queue, admin, quotas=[quota("h100", "8")])
    reconcile(trigger="manual")


def test_a_job_behind_a_running_one_starts_when_its_recorded_run_time_ends(full_queue, scientist):
    # Four runs of pytorch-train in vision: 10, 20, 30 and 40 minutes. Percentiles with
    # linear interpolation over the sorted runs (h = (n − 1)·p):
    #   p50: h = 3 × 0.5 = 1.5 → 20 + 0.5 × (30 − 20) = 25 min = 1,500 s;
    #   p90: h = 3 × 0.9 = 2.7 → 30 + 0.7 × (40 − 30) = 37 min, but the running job may run
    #        at most 35 min (its max run time), so 35 min = 2,100 s.
    record_runs(scientist, [10, 20, 30, 40])
    running = run_one(scientist, max_runtime_minutes=35)
    started = reserved_at(running)

    body = api_as(scientist).post("/api/v1/quotes/", EIGHT, format="json").json()

    assert body["verdict"] == "later"
    # The running job frees vision's 8 GPUs when it ends; Kueue brings waiting workloads
    # back in a batch 1 s after a release, and the quoted job is admitted then.
    assert body["estimated_start"] == {
        "p50": iso(started + timedelta(seconds=1500 + 1)),
        "p90": iso(started + timedelta(seconds=2100 + 1)),
    }
    # The five pytorch-train jobs were submitted just now, as p3-low like the quoted job,
    # and the portal has no older job: 5 in the shortest span, 10 min, is 30 an hour, one
    # every 2 min; 30 × 336 h would be 10,080, so the first 100 only, to 100 ÷ 30 = 3.33 h.
    # They arrive after the quoted job at the same priority, so they queue behind it.
    assert body["estimate_note"] == (
        "from the recorded run times of the running and queued workloads; with arrivals "
        "at the rate of the last 10 minutes (the shortest span counted): 30 an hour of "
        "p3-low (the first 100 in all only, to 3.33 h from now)"
    )
    assert f"estimated start {iso(started + timedelta(seconds=1501))} (p50)" in body["summary"]


def test_higher_priority_arrivals_at_the_recent_rate_go_first(
    full_queue, scientist, template, admin
):
    add_short_eval(admin)
    # The portal's first job was 30 days ago: the rates are over the full 7 days.
    recording_since(scientist, days=30)
    # pytorch-train runs 10 h (two recorded runs of 600 min: p50 = p90 = 10 h).
    record_runs(scientist, [600, 600])
    # 28 p2-standard short-eval jobs this week, each ran 1 h: 28 ÷ 168 h = 1/6 an hour,
    # so one arrives every 6 h from now, runs 1 h, and outranks the p3-low quoted job.
    record_runs(scientist, [60] * 28, template="short-eval", priority_tier="p2-standard")
    body, started = quote_behind_a_running_job(scientist, max_runtime_minutes=720)

    # p50: the running job ends 36,000 s after its reservation; the arrival of now + 6 h
    # has waited since and goes first 1 s later (higher priority), runs 3,600 s, and the
    # quoted job takes the 8 GPUs 1 s after it ends: 36,000 + 1 + 3,600 + 1 = 39,602 s,
    # before the next arrival at now + 12 h. Without arrivals it would be 36,001 s.
    # p90: the arrivals come early, the k-th at 6 h × x_k (x_k solves
    # 1 − e^(−x) Σ_{i<k} x^i/i! = 0.1): 0.1054, 0.5318, 1.1021, 1.7448, 2.4326 → now +
    # 2,276 s, 11,487 s, 23,805 s, 37,688 s, 52,544 s. Three wait at 36,000 s and the
    # fourth comes while they run: four runs of 3,600 + 1 s, then the quoted job, before
    # the fifth: 36,000 + 1 + 4 × 3,601 = 50,405 s.
    assert body["verdict"] == "later"
    assert body["estimated_start"] == {
        "p50": iso(started + timedelta(seconds=39_602)),
        "p90": iso(started + timedelta(seconds=50_405)),
    }
    # Rates: p2-standard 28 ÷ 168 = 0.167 an hour; p3-low (two recorded runs and the
    # running job) 3 ÷ 168 = 0.0179 an hour, one every 56 h.
    assert body["estimate_note"] == (
        "from the recorded run times of the running and queued workloads; with arrivals at "
        "the last 7 days' rate: 0.167 an hour of p2-standard, 0.0179 an hour of p3-low"
    )


def test_in_a_young_portal_arrivals_come_at_the_rate_of_its_short_history(
    full_queue, scientist, template, admin
):
    add_short_eval(admin)
    # Every job was submitted just now: the portal's history is minutes old. pytorch-train
    # runs 15 min (two runs of 15: p50 = p90 = 900 s); one p2-standard short-eval job ran
    # 2 min (120 s). Over the shortest span, 10 min, that one is 6 an hour: one every
    # 600 s. Over 7 days it would be 1 ÷ 168 h, the first one a week away.
    record_runs(scientist, [15, 15])
    record_runs(scientist, [2], template="short-eval", priority_tier="p2-standard")
    body, started = quote_behind_a_running_job(scientist)

    # p50: the running job ends 900 s after its reservation; the arrival of now + 600 s
    # has waited since and goes first 1 s later (higher priority), runs 120 s, and the
    # quoted job takes the 8 GPUs 1 s after it ends: 900 + 1 + 120 + 1 = 1,022 s, before
    # the next arrival at now + 1,200 s. At the 7 days' rate it would be 901 s.
    # p90: early arrivals at 600 s × 0.1054, 0.5318, 1.1021, 1.7448, 2.4326 = now + 63,
    # 319, 661, 1,047, 1,460 s: three wait at 900 s, the fourth comes while they run; four
    # runs of 120 + 1 s, then the quoted job: 900 + 1 + 4 × 121 = 1,385 s, before 1,460 s.
    assert body["verdict"] == "later"
    assert body["estimated_start"] == {
        "p50": iso(started + timedelta(seconds=1_022)),
        "p90": iso(started + timedelta(seconds=1_385)),
    }
    # p2-standard: 1 in 10 min = 6 an hour; p3-low (two recorded runs and the running
    # job): 3 in 10 min = 18 an hour. 24 an hour in all, 8,064 in 336 h: the first 100,
    # to 100 ÷ 24 = 4.17 h.
    assert body["estimate_note"] == (
        "from the recorded run times of the running and queued workloads; with arrivals "
        "at the rate of the last 10 minutes (the shortest span counted): 6 an hour of "
        "p2-standard, 18 an hour of p3-low (the first 100 in all only, to 4.17 h from now)"
    )


def test_the_rate_is_over_the_portals_history_when_shorter_than_7_days():
    now = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)
    # First job 2 h ago: 2 h. 30 days ago: the 7 days. 1 min ago: the 10-minute floor.
    # No job at all: the 7 days (nothing is counted anyway).
    assert counted_span(now - timedelta(hours=2), now=now) == timedelta(hours=2)
    assert counted_span(now - timedelta(days=30), now=now) == timedelta(days=7)
    assert counted_span(now - timedelta(minutes=1), now=now) == timedelta(minutes=10)
    assert counted_span(None, now=now) == timedelta(days=7)
    # 2 h 30 min of history, in the note; 0.8 an hour × 336 h = 268.8 arrivals: the first
    # 100 only, to 100 ÷ 0.8 = 125 h.
    arrivals = Arrivals((), (("p3-low", 0.8),), (), timedelta(hours=2.5))
    assert arrivals.note == (
        "with arrivals at the rate of the 2.5 h since the portal's first job: "
        "0.8 an hour of p3-low (the first 100 in all only, to 125 h from now)"
    )


def test_arrivals_to_another_queue_of_the_cohort_take_back_what_it_would_lend(
    full_queue, scientist, other_queue, other_lead
):
    # vision holds 8 h100 of its own and may borrow; nlp has 16 of its own and lends them.
    reconcile(trigger="manual")  # nlp's queue too
    # Runs recorded: vision's pytorch-train 60 min (3,600 s), nlp's 30 min (1,800 s).
    record_runs(scientist, [60])
    record_runs(other_lead, [30], pods=2)
    nlp_job = run_team_job(other_lead, pods=2, count=1)  # nlp's 16
    vision_job = run_team_job(scientist, count=2)  # vision's own 8
    nlp_started, vision_started = reserved_at(nlp_job), reserved_at(vision_job)

    body = api_as(scientist).post("/api/v1/quotes/", EIGHT, format="json").json()

    # Without nlp's arrivals the quoted job would borrow 8 of nlp's 16 once nlp's job ends,
    # 1,800 + 1 s after its reservation. But nlp submitted 2 jobs of 16 GPUs in the last
    # 10 min: 12 an hour, one every 300 s, each running 1,800 s; the one waiting when nlp's
    # job ends takes nlp's own quota first (a workload within its nominal quota goes
    # before one that borrows), and the next ones keep nlp full. The quoted job starts
    # with vision's own 8 when vision's job ends: 3,600 + 1 s after its reservation.
    assert nlp_started <= vision_started
    assert body["verdict"] == "later"
    start = iso(vision_started + timedelta(seconds=3_601))
    assert body["estimated_start"] == {"p50": start, "p90": start}
    assert "12 an hour of p3-low in queue nlp" in body["estimate_note"]


def test_without_recorded_runs_there_is_no_start_and_the_note_says_why(full_queue, scientist):
    running = run_one(scientist)
    body = api_as(scientist).post("/api/v1/quotes/", EIGHT, format="json").json()
    assert body["verdict"] == "later"
    assert body["estimated_start"] is None
    # The asker's own team's workload is named.
    # The running job is p3-low's one submission of the week, without a recorded run.
    assert body["estimate_note"] == (
        f"no recorded run time of {o.key(running)}, which the model then keeps running; "
        "no arrivals of p3-low simulated: no recorded run time"
    )
    assert "no start estimate (" in body["summary"]


def test_another_teams_workloads_without_history_are_counted_not_named(
    full_queue, scientist, other_queue, other_lead
):
    # nlp lends all 16 of its h100 and does not reclaim them: three 8-GPU vision jobs hold
    # vision's own 8 and nlp's 16, so nlp's own 8-GPU job would wait for them.
    reconcile(trigger="manual")  # nlp's queue too
    running = [run_one(scientist, count=n) for n in (1, 2, 3)][0]
    body = api_as(other_lead).post("/api/v1/quotes/", EIGHT, format="json").json()
    assert body["verdict"] == "later"
    assert body["estimated_start"] is None
    # vision's three p3-low jobs are arrivals to another queue of nlp's cohort, not
    # simulated without a recorded run time.
    assert body["estimate_note"] == (
        "no recorded run time of 3 workloads of other teams, which the model then keeps "
        "running; no arrivals of p3-low in queue vision simulated: no recorded run time"
    )
    assert "team-vision" not in str(body)
    assert o.key(running) not in str(body)


def test_arrivals_are_evenly_spaced_or_early_and_stop_at_the_horizon():
    hour = 3_600_000
    # 1/6 an hour: one every 6 h, the first 6 h from now; none past 20 h.
    assert arrival_times(1 / 6, now_ms=0, until_ms=20 * hour) == [6 * hour, 12 * hour, 18 * hour]
    # 1,000 an hour for 14 days would be 336,000: at most MAX_ARRIVALS (100), 3.6 s apart.
    many = arrival_times(1000, now_ms=0, until_ms=HORIZON_MS)
    assert (len(many), many[-1]) == (MAX_ARRIVALS, 100 * 3_600)
    # Early (the p90 run): the first at 6 h × −ln 0.9 = 6 h × 0.10536 = 2,275,787 ms; the
    # second where e^(−x)(1 + x) = 0.9, x = 0.5318 (e^(−0.5318) = 0.58752, × 1.5318 =
    # 0.9000): 11,487,000 ms; the third, x = 1.1021, at 23,805,000 ms; the fourth, x =
    # 1.7448, at 37,688,000 ms, past 7 h (25,200,000 ms).
    early = arrival_times(1 / 6, now_ms=0, until_ms=7 * hour, early=True)
    assert early == pytest.approx([2_275_787, 11_487_000, 23_805_000], abs=2_000)
    assert early_gaps()[0] == pytest.approx(-math.log(0.9))


def test_arrivals_stop_once_100_in_all_are_expected():
    hour = 3_600_000
    stream = ArrivalStream({}, 0, ExpectedRun(60, 60, 1, 60))
    streams = (replace(stream, per_hour=30), replace(stream, per_hour=10))
    # 30 + 10 = 40 an hour: 100 in all by 2.5 h; 0.01 an hour: the 14 days first.
    assert arrivals_end_ms(streams, now_ms=0, until_ms=HORIZON_MS) == 2.5 * hour
    slow = (replace(stream, per_hour=0.01),)
    assert arrivals_end_ms(slow, now_ms=0, until_ms=HORIZON_MS) == HORIZON_MS


def workload(name: str, created: str, priority: int = 10) -> dict:
    return {
        "kind": "Workload",
        "metadata": {"namespace": "team-vision", "name": name, "creationTimestamp": created},
        "spec": {"priority": priority},
    }


def test_queued_work_takes_the_visibility_apis_order_within_a_priority():
    a, b = workload("a", "2026-12-05T10:00:00Z"), workload("b", "2026-12-05T10:01:00Z")
    c = workload("c", "2026-12-05T10:02:00Z")
    high = workload("high", "2026-12-05T10:03:00Z", priority=100)
    # Kueue's order in vision: c, a, high, b (an order across priorities is not followed).
    reported = {
        "vision": {"team-vision/c": 1, "team-vision/a": 2, "team-vision/high": 3,
                   "team-vision/b": 4},
        "nlp": None,  # not served: nlp's workloads keep their times
    }  # fmt: skip
    ordered = in_reported_order([a, b, c, high], reported)
    # The priority-10 three swap their times: c the oldest (10:00), then a, then b.
    stamps = [w["metadata"]["creationTimestamp"] for w in ordered]
    assert stamps == [
        "2026-12-05T10:01:00Z",  # a
        "2026-12-05T10:02:00Z",  # b
        "2026-12-05T10:00:00Z",  # c
        "2026-12-05T10:03:00Z",  # high, alone at its priority
    ]
    assert a["metadata"]["creationTimestamp"] == "2026-12-05T10:00:00Z"  # inputs untouched
    assert in_reported_order([a, b], {}) == [a, b]


def test_the_note_says_which_arrivals_were_cut_or_left_out():
    arrivals = Arrivals((), (("p2-standard", 2.4), ("p3-low", 0.5)), ("p1-high",))
    # 2.4 + 0.5 = 2.9 an hour over 14 days (336 h) would be 974 arrivals: the first 100
    # in all only, which come within 100 ÷ 2.9 = 34.5 h.
    assert arrivals.note == (
        "with arrivals at the last 7 days' rate: 2.4 an hour of p2-standard, 0.5 an hour of "
        "p3-low (the first 100 in all only, to 34.5 h from now); no arrivals of p1-high "
        "simulated: no recorded run time"
    )
