"""A workload page's timeline comes from the recorder's history (times by hand)."""

import copy
from datetime import UTC, datetime

import pytest

from apps.live.recorded_lifeline import recorded_figure
from apps.reports import services
from testkit.history import iso, life

pytestmark = pytest.mark.django_db
T0 = 1_780_000_000.0  # any fixed time: 2026-05-28 20:26:40 UTC


def test_a_preempted_workload_waits_again_until_now():
    events = life("victim", "team-vision", created=T0, admitted=T0 + 60, ended=None)
    evicted = copy.deepcopy(events[-1][1])
    evicted["status"]["conditions"] += [
        {"type": t, "status": "True", "reason": r, "message": "Preempted to accommodate a "
         "workload (UID: uid-boss, JobUID: j)", "lastTransitionTime": iso(T0 + 600)}
        for t, r in (("Evicted", "Preempted"), ("Preempted", "InClusterQueue"))
    ]  # fmt: skip
    services.record_workload_events([*events, ("MODIFIED", evicted)])

    spec = recorded_figure("uid-victim", now=datetime.fromtimestamp(T0 + 900, UTC))
    bars = {t["name"]: list(zip(t["base"], t["x"], strict=True)) for t in spec["data"]}
    # queued 60 s = 60,000 ms; admitted 600 − 60 = 540 s; evicted at +600 s, still
    # waiting at +900 s: 300 s.
    assert bars == {
        "queued": [("2026-05-28 20:26:40", 60_000.0)],
        "admitted": [("2026-05-28 20:27:40", 540_000.0)],
        "evicted, waiting": [("2026-05-28 20:36:40", 300_000.0)],
    }
    assert spec["data"][2]["hovertext"] == ["evicted, waiting: 2026-05-28 20:36:40 UTC → still now"]
