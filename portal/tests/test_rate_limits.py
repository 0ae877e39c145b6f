"""The API rate limit slides: quota comes back as the previous minute's requests age out."""

from types import SimpleNamespace

import pytest

from portal.throttling import UserRate

pytestmark = pytest.mark.django_db


def throttle_at(clock: list[float]) -> UserRate:
    throttle = UserRate()
    throttle.timer = lambda: clock[0]
    return throttle


def allowed(user, clock: list[float], attempts: int) -> int:
    request = SimpleNamespace(user=user)
    return sum(throttle_at(clock).allow_request(request, None) for _ in range(attempts))


def test_the_limit_holds_per_window_and_slides_into_the_next(settings, scientist):
    settings.API_RATE_USER = "10/min"
    clock = [6000.0 + 15]  # 15 s into a window
    assert allowed(scientist, clock, 12) == 10
    refused = throttle_at(clock)
    assert not refused.allow_request(SimpleNamespace(user=scientist), None)
    assert refused.wait() == pytest.approx(45)  # the rest of this window

    clock[0] = 6060.0 + 30  # half-way through the next window: half the old count remains
    assert allowed(scientist, clock, 10) == 5
    clock[0] = 6120.0 + 30  # the first window is out of sight; half of the last one's 5 count
    assert allowed(scientist, clock, 10) == 8


def test_refusals_say_when_to_come_back(settings, scientist):
    settings.API_RATE_USER = "4/min"
    clock = [6000.0]
    assert allowed(scientist, clock, 4) == 4
    clock[0] = 6060.0 + 15  # 3 of the 4 still count, so one more fits
    assert allowed(scientist, clock, 2) == 1
    refused = throttle_at(clock)
    assert not refused.allow_request(SimpleNamespace(user=scientist), None)
    wait = refused.wait()
    clock[0] += wait + 0.01
    assert allowed(scientist, clock, 1) == 1
