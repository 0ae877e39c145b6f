"""A week recorded through the recorder's service, read back by the build: a pending
reason, a checkpoint, a preemption with its preemptor, a requeue and a re-admission
come out as the report's waits, runs and losses, every figure worked out here by hand.

It drives the build's one read of the history (on PostgreSQL a single query sending
each workload's steps in aggregate; on SQLite the row-by-row fallback): both must give
these numbers.
"""

from __future__ import annotations

import copy

import pytest

from apps.reports import services
from informer.workload import LAST_CHECKPOINT
from testkit import history, promdata

H = 3600.0
MONDAY = promdata.MONDAY


def _at(hours: float) -> str:
    return history.iso(MONDAY + hours * H)


def _condition(type_: str, status: str, reason: str, hours: float, message: str = "") -> dict:
    return {"type": type_, "status": status, "reason": reason,
            "message": message or reason, "lastTransitionTime": _at(hours)}  # fmt: skip


def _admission(gpus: int) -> dict:
    return {"clusterQueue": "vision", "podSetAssignments": [{
        "name": "main", "flavors": {"nvidia.com/gpu": "h100"},
        "resourceUsage": {"nvidia.com/gpu": str(gpus)}, "count": 1}]}  # fmt: skip


def _victim_events() -> list[tuple[str, dict]]:
    """vision's 2-GPU job: created 1 h, pending (QuotaExhausted) at 1.5 h, admitted 2 h,
    checkpoint 3 h, preempted by nlp's ``boss`` at 4 h, re-admitted 4.5 h, done 7 h."""
    (_, obj), *_ = history.life("victim", "team-vision", created=MONDAY + 1 * H,
                                admitted=None, ended=None, gpus=2)  # fmt: skip
    preemption = (
        "Preempted to accommodate a workload (UID: uid-boss, JobUID: j) due to reclamation "
        "within the cohort; preemptor path: /research/nlp; preemptee path: /research/vision"
    )
    events = [("ADDED", copy.deepcopy(obj))]

    def step(conditions: list[dict], admission: dict | None, checkpoint: bool = False) -> None:
        obj["status"] = {"conditions": conditions, "admission": admission}
        if checkpoint:
            obj["metadata"]["annotations"] = {LAST_CHECKPOINT: _at(3)}
        events.append(("MODIFIED", copy.deepcopy(obj)))

    admitted = [_condition("QuotaReserved", "True", "QuotaReserved", 2),
                _condition("Admitted", "True", "Admitted", 2)]  # fmt: skip
    step([_condition("QuotaReserved", "False", "QuotaExhausted", 1.5)], None)
    step(admitted, _admission(2))
    step(admitted, _admission(2), checkpoint=True)
    step([_condition("QuotaReserved", "False", "PendingEvaluation", 4),
          _condition("Admitted", "False", "NoReservation", 4),
          _condition("Evicted", "True", "Preempted", 4, preemption),
          _condition("Preempted", "True", "InCohortReclamation", 4, preemption),
          _condition("Requeued", "True", "Preempted", 4)], None)  # fmt: skip
    readmitted = [_condition("QuotaReserved", "True", "QuotaReserved", 4.5),
                  _condition("Admitted", "True", "Admitted", 4.5),
                  _condition("Evicted", "False", "QuotaReserved", 4.5),
                  _condition("Preempted", "False", "QuotaReserved", 4.5),
                  _condition("Requeued", "True", "Preempted", 4)]  # fmt: skip
    step(readmitted, _admission(2))
    step([*readmitted, _condition("Finished", "True", "Succeeded", 7)], _admission(2))
    return events


@pytest.fixture
def built(settings, team, other_team, queue, other_queue):
    settings.PROMETHEUS_URL = settings.OPENCOST_URL = ""
    history.record(
        _victim_events(),
        # nlp's boss: created 3 h 20 min, admitted 4 h, done 6 h, 2 GPUs.
        history.life("boss", "team-nlp", created=MONDAY + 3 * H + 20 * 60,
                     admitted=MONDAY + 4 * H, ended=MONDAY + 6 * H, gpus=2, queue="nlp"),
    )  # fmt: skip
    return services.build_weekly_report(promdata.WEEK).data


def _row(rows: list[dict], **match) -> dict:
    return next(r for r in rows if all(r[k] == v for k, v in match.items()))


def test_waits_are_the_initial_and_the_requeue_waits(built):
    overall = _row(built["waits"], dimension="all")
    # victim 1 h → 2 h = 3600 s; victim requeued 4 h → 4.5 h = 1800 s;
    # boss 3 h 20 → 4 h = 2400 s. Sorted 1800, 2400, 3600.
    assert overall["count"] == 3
    assert overall["p50"] == 2400.0
    assert overall["p90"] == 3360.0  # h = 2 × 0.9 = 1.8: 2400 + 0.8 × (3600 − 2400)
    assert overall["max"] == 3600.0
    assert [(r["queue"], r["count"], r["max"]) for r in built["requeue_waits"]] == [
        ("vision", 1, 1800.0)
    ]
    longest = _row(built["starvation"], queue="vision")
    assert (longest["longest_wait"], longest["longest_uid"]) == (3600.0, "uid-victim")


def test_the_preemption_loses_the_work_since_the_checkpoint(built):
    (event,) = built["preemption"]["events"]
    assert event["uid"] == "uid-victim"
    assert event["reason"] == "InCohortReclamation"
    assert event["lost_gpu_hours"] == 2.0  # 2 GPUs × (4 h − checkpoint 3 h)
    assert event["assumed_from_admission"] is False
    assert (event["preemptor_uid"], event["preemptor_team"]) == ("uid-boss", "nlp")
    assert built["preemption"]["pairs"] == [
        {"preemptor_team": "nlp", "victim_team": "vision", "count": 1, "lost_gpu_hours": 2.0}
    ]


def test_received_gpu_hours_count_both_runs(built):
    teams = {t["team"]: t for t in built["fairness"]["teams"]}
    # victim: 2 GPUs × (4 − 2) h + 2 GPUs × (7 − 4.5) h = 4 + 5 = 9
    assert teams["vision"]["received_gpu_hours"] == 9.0
    assert teams["vision"]["gpu_hours_by_flavor"] == {"h100": 9.0}
    # boss: 2 GPUs × (6 − 4) h = 4
    assert teams["nlp"]["received_gpu_hours"] == 4.0
