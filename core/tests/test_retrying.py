"""How long a failed step waits before its next try."""

from __future__ import annotations

import pytest

from core.kube import KubeError
from core.retrying import backoff_seconds, retry_transient, task_countdown


def test_the_backoff_doubles_from_the_first_wait_up_to_its_cap():
    assert [backoff_seconds(n, first=1, cap=30) for n in (1, 2, 3, 5, 6, 9)] == [
        1,
        2,
        4,
        16,
        30,
        30,
    ]


@pytest.mark.parametrize(("retries", "low", "high"), [(0, 0.5, 1), (3, 4, 8), (20, 150, 300)])
def test_a_task_waits_half_to_all_of_the_doubled_backoff_capped_by_the_setting(
    settings, retries, low, high
):
    settings.QM_RECONCILE_BACKOFF_MAX_SECONDS = 300
    waits = [task_countdown(retries) for _ in range(200)]
    assert low <= min(waits) and max(waits) <= high
    assert max(waits) - min(waits) > (high - low) / 4  # jittered, not one fixed value


def test_a_transient_error_is_tried_again_and_a_permanent_one_is_raised():
    outcomes = iter([_error(504, "Timeout"), _error(403, "Forbidden")])
    waits: list[float] = []

    def call():
        raise next(outcomes)

    with pytest.raises(KubeError) as raised:
        retry_transient(call, on_retry=lambda _error, delay: None, sleep=waits.append)
    assert raised.value.code == 403
    assert waits == [1.0]


def _error(code: int, reason: str) -> KubeError:
    return KubeError(code=code, reason=reason, message=reason, verb="get", resource="clusterqueues")
