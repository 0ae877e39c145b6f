"""The launcher's restart rules, on plain death times (seconds)."""

import pytest

from portal.restart_policy import Decision, RestartPolicy, decide

POLICY = RestartPolicy(
    give_up_after=5, window_seconds=60, first_backoff_seconds=1, max_backoff_seconds=8
)


def test_a_first_death_is_restarted_after_the_first_backoff():
    assert decide([100.0], POLICY) == Decision(restart=True, delay_seconds=1, recent_deaths=1)


def test_the_backoff_doubles_with_each_recent_death_up_to_the_cap():
    delays = [decide([0, 1, 2, 3][: n + 1], POLICY).delay_seconds for n in range(4)]
    assert delays == [1, 2, 4, 8]
    assert (
        decide([0, 1, 2, 3], RestartPolicy(give_up_after=9, max_backoff_seconds=5)).delay_seconds
        == 5
    )


def test_the_fifth_death_within_a_minute_is_given_up_on():
    assert decide([0, 10, 20, 30, 59.9], POLICY) == Decision(False, 0.0, 5)


def test_deaths_older_than_the_window_are_forgiven():
    decision = decide([0, 10, 20, 30, 60], POLICY)  # the first is a minute old: four recent
    assert decision.restart and decision.recent_deaths == 4
    assert decide([0, 100, 200, 300, 400, 500], POLICY).delay_seconds == 1


def test_no_death_is_a_mistake_that_says_so():
    with pytest.raises(ValueError, match="deaths"):
        decide([], POLICY)
