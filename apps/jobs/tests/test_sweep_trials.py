"""A sweep's trials: expanding a list or a grid, a trial's command, progress counts."""

import pytest

from apps.jobs.trials import MAX_TRIALS, expand_trials, progress, trial_command
from core.errors import RuleBroken


def test_a_grid_makes_every_combination_with_the_last_name_fastest():
    trials = expand_trials(None, {"seed": [1, 2, 3], "lr": ["0.1", "0.01"]})
    # names sorted: lr, seed; 2 lr values × 3 seeds = 6 trials
    assert trials == [
        {"lr": "0.1", "seed": "1"},
        {"lr": "0.1", "seed": "2"},
        {"lr": "0.1", "seed": "3"},
        {"lr": "0.01", "seed": "1"},
        {"lr": "0.01", "seed": "2"},
        {"lr": "0.01", "seed": "3"},
    ]


def test_a_list_is_taken_as_given():
    assert expand_trials([{"lr": 0.5}, {"lr": "1e-3", "bs": 32}], None) == [
        {"lr": "0.5"},
        {"lr": "1e-3", "bs": "32"},
    ]


@pytest.mark.parametrize(
    ("parameters", "grid", "field", "words"),
    [
        (None, None, "parameters", "exactly one of"),
        ([{"lr": 1}], {"lr": [1]}, "parameters", "exactly one of"),
        ([], None, "parameters", f"1–{MAX_TRIALS} trials"),
        ([{}] * (MAX_TRIALS + 1), None, "parameters", f"this list has {MAX_TRIALS + 1}"),
        # 26 × 20 = 520 combinations, over the cap
        (None, {"a": list(range(26)), "b": list(range(20))}, "grid", "this grid makes 520"),
        (None, {"lr": []}, "grid", "non-empty list"),
        ([{"1x": 1}], None, "parameters", "learning_rate"),
        ([{"flag": True}], None, "parameters", "strings or numbers"),
        ([{"lr": "x" * 201}], None, "parameters", "1–200 characters"),
        (["lr=1"], None, "parameters", "parameters[0]"),
    ],
)
def test_bad_parameters_name_the_field_and_the_rule(parameters, grid, field, words):
    with pytest.raises(RuleBroken) as caught:
        expand_trials(parameters, grid)
    assert caught.value.field == field
    assert words in caught.value.detail


def test_a_trial_command_appends_its_parameters_in_name_order():
    command = trial_command(["python", "train.py"], {"seed": "2", "lr": "0.1"})
    assert command == ["python", "train.py", "--lr=0.1", "--seed=2"]


def test_progress_counts_unreleased_trials_as_waiting_until_cancelled():
    states = ["succeeded", "running", "admitted", "queued", "submitted", "failed", "cancelled"]
    # 10 trials, 7 released: 3 not released yet wait with the queued and submitted ones
    counts = progress(states, trials=10, cancelled_sweep=False)
    assert (counts.done, counts.running, counts.waiting, counts.failed, counts.cancelled) == (
        1,
        2,
        2 + 3,
        1,
        1,
    )
    cancelled = progress(states, trials=10, cancelled_sweep=True)
    assert (cancelled.waiting, cancelled.cancelled, cancelled.total) == (2, 1 + 3, 10)
