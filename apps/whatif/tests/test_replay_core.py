"""The pure replay core: unchanged policy reproduces history; a quota change moves waits."""

from apps.whatif.replay.engine import replay
from apps.whatif.replay.fidelity import fidelity
from apps.whatif.replay.metrics import team_metrics
from apps.whatif.replay.trace import PodSetSpec, TraceWorkload
from apps.whatif.tests.helpers import START_MS, objects, queue, recorded, seeded_trace, window


def _current():
    return [queue("vision", "8"), queue("nlp", "8")]


def test_it_reproduces_a_recorded_history_under_the_unchanged_policy():
    history = recorded(objects(_current()), seeded_trace())
    result = replay(objects(_current()), history, window())
    report = fidelity(history, result)
    assert report.compared > 100
    assert report.mean_abs_error_s == 0
    assert report.p95_wait_error_s == 0


def test_doubling_a_teams_quota_shortens_its_waits():
    history = recorded(objects(_current()), seeded_trace())
    before = team_metrics(
        history, replay(objects(_current()), history, window()), entitled={}, capacity_gpus=16
    )
    doubled = [queue("vision", "16"), queue("nlp", "8")]
    after = team_metrics(
        history, replay(objects(doubled), history, window()), entitled={}, capacity_gpus=24
    )
    assert before["vision"].p95_wait_s > 0
    assert after["vision"].p95_wait_s < before["vision"].p95_wait_s
    assert after["vision"].mean_wait_s < before["vision"].mean_wait_s


def test_preempted_checkpointed_work_counts_only_what_was_lost():
    history = recorded(objects(_current()), seeded_trace())
    metrics = team_metrics(
        history, replay(objects(_current()), history, window()), entitled={}, capacity_gpus=16
    )
    preempted = sum(m.preemptions for m in metrics.values())
    assert preempted > 0
    # Checkpoints every 30 minutes: no preemption loses more than half an hour of a job.
    lost_hours = sum(m.gpu_hours_lost for m in metrics.values())
    assert 0 < lost_hours <= preempted * 0.5 * 8


def _job(name: str, created_s: int, gpus: int, minutes: int) -> TraceWorkload:
    return TraceWorkload(
        uid=f"uid-{name}",
        namespace="team-vision",
        name=name,
        team="vision",
        queue="vision",
        priority=0,
        created_ms=START_MS + created_s * 1000,
        pod_sets=(PodSetSpec(1, {"nvidia.com/gpu": gpus}),),
        work_ms=minutes * 60_000,
    )


def test_rounding_arrivals_to_the_grid_is_not_counted_as_waiting():
    # Arrivals 7 s and 20 s past the minute: the replay moves both to the next 30 s
    # step. The first starts at once; the second waits for the first's 8 GPUs.
    first, second = _job("first", 7, 8, 10), _job("second", 20, 8, 10)
    result = replay(objects([queue("vision", "8")]), [first, second], window())
    assert result.outcomes[first.key].first_admit_ms == first.created_ms
    waited = result.outcomes[second.key].first_admit_ms - second.created_ms
    # It waits from its own grid arrival (30 s) until the first ends (30 s + 10 min),
    # parked meanwhile, so it comes back one requeue batch (1 s) after the release,
    # as in Kueue, on any grid.
    assert waited == 10 * 60_000 + 1_000
