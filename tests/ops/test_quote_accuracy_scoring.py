"""bench/quote_scoring.py scores a quote against what happened, worked out by hand."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bench.quote_scoring import (
    Arrival,
    Outcome,
    before_p90,
    dumps,
    errors_s,
    loads,
    naive_wait_s,
    overtaken,
    raced,
    stream,
    verdict_right,
)

T0 = datetime(2026, 12, 5, 12, 0, tzinfo=UTC)
JOB = Arrival(at_s=0, team="vision", template="train", gpus=8, pods=1, run_s=60)
H100 = {"main": {"nvidia.com/gpu": "h100"}}
A100 = {"main": {"nvidia.com/gpu": "a100"}}


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def outcome(verdict: str, quoted: float, started: float | None, **kw) -> Outcome:
    moments = {k: at(v) for k, v in kw.items() if k in ("p50", "p90", "naive")}
    return Outcome(
        JOB,
        at(quoted),
        verdict,
        kw.get("flavors", H100),
        moments.get("p50"),
        moments.get("p90"),
        moments.get("naive"),
        job="j",
        started=None if started is None else at(started),
        started_flavors=kw.get("started_flavors", H100),
    )


def test_the_naive_wait_is_the_mean_of_the_waits_that_started_within_the_window():
    # Started 400 s, 250 s and 10 s before the quote; the 300 s window keeps the last
    # two: (30 + 90) / 2 = 60 s.
    waits = [(at(-400), 1000.0), (at(-250), 30.0), (at(-10), 90.0), (at(20), 7.0)]
    assert naive_wait_s(waits, T0, 300) == 60.0
    assert naive_wait_s(waits[:1], T0, 300) is None


def test_now_is_right_only_admitted_soon_on_the_quoted_flavor_and_never_only_if_never():
    assert verdict_right(outcome("now", 0, 3), 10) is True
    assert verdict_right(outcome("now", 0, 11), 10) is False  # 11 s > 10 s
    assert verdict_right(outcome("now", 0, 3, started_flavors=A100), 10) is False
    assert verdict_right(outcome("now", 0, None), 10) is False
    assert verdict_right(outcome("never", 0, None), 10) is True
    assert verdict_right(outcome("never", 0, 50), 10) is False
    assert verdict_right(outcome("later", 0, 50, p50=40), 10) is None


def test_errors_compare_the_p50_and_the_naive_answer_and_p90_counts_starts_at_or_before_it():
    later = outcome("later", 0, 100, p50=80, p90=100, naive=160)
    early = outcome("later", 5, 50, p50=60, p90=45, naive=20)
    now = outcome("now", 10, 12, naive=40)
    # |100 - 80| = 20, |50 - 60| = 10, |12 - 10| = 2 (a now starts at its quote);
    # naive |100 - 160| = 60, |50 - 20| = 30, |12 - 40| = 28.
    assert errors_s([later, early, now]) == ([20.0, 10.0, 2.0], [60.0, 30.0, 28.0])
    # 100 <= 100 counts; 50 > 45 does not.
    assert before_p90([later, early]) == (1, 2)
    # Quoted after later (0 s), started before its 100 s: early (5 s, 50 s) and now
    # (10 s, 12 s); after early (5 s), before its 50 s: now alone.
    assert (overtaken(later, [later, early, now]), overtaken(early, [later, early, now])) == (2, 1)
    other_team = Outcome(**{**vars(now), "arrival": Arrival(10, "nlp", "eval", 2, 1, 20)})
    # Of its own queue: early alone; the nlp job does not count.
    assert overtaken(later, [later, early, other_team], same_team=True) == 1


def test_the_stream_is_the_same_for_a_seed_and_every_tenth_asks_too_much():
    first, again = stream(20, 7, 6.0, 10), stream(20, 7, 6.0, 10)
    assert first == again
    assert [i for i, a in enumerate(first) if a.never] == [9, 19]
    assert stream(20, 8, 6.0, 10) != first


def test_kept_outcomes_read_back_the_same():
    kept = [outcome("later", 0, 100, p50=80, p90=100, naive=160), outcome("never", 1, None)]
    assert loads(dumps(kept)) == kept


def test_a_wrong_now_raced_when_another_job_ended_between_the_quote_and_the_admission():
    wrong = outcome("now", 100, 101, started_flavors=A100)
    ended_meanwhile = outcome("now", 0, 1)
    ended_meanwhile.ended = at(100.5)
    assert raced(wrong, [wrong, ended_meanwhile]) is True
    # Ended 3 s before the quote (slack 2 s), or 4 s after the admission: not meanwhile.
    ended_meanwhile.ended = at(97)
    assert raced(wrong, [wrong, ended_meanwhile]) is False
    ended_meanwhile.ended = at(105)
    assert raced(wrong, [wrong, ended_meanwhile]) is False
