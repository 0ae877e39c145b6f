"""A difference is a gain or a loss only outside the team's measured noise band."""

from apps.whatif.replay.engine import ReplayResult, WorkloadOutcome
from apps.whatif.replay.fidelity import fidelity_by_team, wait_noise_s
from apps.whatif.replay.metrics import compare, verdict
from apps.whatif.replay.trace import PodSetSpec, TraceWorkload, Window
from apps.whatif.tests.helpers import team_workload

S = 1000
POD = (PodSetSpec(1, {"nvidia.com/gpu": 1}),)


def _wl(name: str, team: str, created_s: int, recorded_wait_s: int) -> TraceWorkload:
    created = created_s * S
    return team_workload(name, team, created, POD, recorded_admit_ms=created + recorded_wait_s * S)


def test_the_noise_band_is_the_larger_of_the_p95_error_and_the_mean_error():
    # vision: recorded waits 100 s and 300 s, replayed 100 s and 100 s.
    #   errors 0 and 200 -> mean 100; recorded p95 = 100 + 0.95 * 200 = 290,
    #   replayed p95 = 100 -> p95 error 190; band = max(190, 100) = 190.
    # nlp: recorded 0, 0, 600; replayed 400, 400, 600 -> errors 400, 400, 0, mean 266.7;
    #   recorded p95 = 0 + 0.9 * 600 = 540 (rank 1.9), replayed p95 = 400 + 0.9 * 200 = 580
    #   -> p95 error 40; band = 266.7.
    trace = [
        _wl("v1", "vision", 0, 100),
        _wl("v2", "vision", 10, 300),
        _wl("n1", "nlp", 0, 0),
        _wl("n2", "nlp", 20, 0),
        _wl("n3", "nlp", 40, 600),
    ]
    replayed = {"v1": 100, "v2": 100, "n1": 400, "n2": 400, "n3": 600}
    result = ReplayResult(Window(0, 3600 * S))
    for wl in trace:
        result.outcomes[wl.key] = WorkloadOutcome(wl.created_ms + replayed[wl.name] * S)
    bands = {team: wait_noise_s(f) for team, f in fidelity_by_team(trace, result).items()}
    assert round(bands["vision"], 6) == 190
    assert round(bands["nlp"], 6) == round(800 / 3, 6)


def test_a_wait_change_inside_the_band_is_within_noise_not_a_gain():
    before, after = {"p95_wait_s": 1000.0}, {"p95_wait_s": 700.0}
    assert verdict(before, after, 400.0) == "within_noise"
    assert verdict(before, after, 200.0) == "gains"
    assert verdict(after, before, 200.0) == "loses"
    # 50 s is below the 60 s rounding margin: unchanged, whatever the band.
    assert verdict({"p95_wait_s": 1000.0}, {"p95_wait_s": 950.0}, 400.0) == "unchanged"


def test_a_share_change_is_judged_on_its_own_margin_even_when_waits_are_noise():
    before = {"p95_wait_s": 1000.0, "received_share": 0.40}
    after = {"p95_wait_s": 700.0, "received_share": 0.45}
    assert verdict(before, after, 400.0) == "gains"


def test_the_comparison_says_within_noise_with_the_band_in_seconds():
    current = {"vision": {"p95_wait_s": 1000.0}, "nlp": {"p95_wait_s": 1000.0}}
    proposed = {"vision": {"p95_wait_s": 700.0}, "nlp": {"p95_wait_s": 700.0}}
    rows = {c.team: c.as_dict() for c in compare(current, proposed, {"vision": 1060.4})}
    assert rows["vision"]["verdict_text"] == "within noise (±1060 s)"
    assert rows["vision"]["wait_noise_s"] == 1060.4
    assert rows["nlp"]["verdict_text"] == "gains"
