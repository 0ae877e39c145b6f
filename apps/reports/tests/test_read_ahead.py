"""The build's reader asks for the next chunk while the current one is processed, and
hands every chunk over once, in order."""

from __future__ import annotations

import threading

from apps.reports.read_ahead import chunks_ahead


def test_it_hands_over_every_chunk_in_order_and_stops_at_the_empty_one():
    chunks = iter([[1, 2], [3], [4, 5, 6], [], [7]])
    assert list(chunks_ahead(lambda: next(chunks))) == [[1, 2], [3], [4, 5, 6]]
    assert next(chunks) == [7]  # nothing fetched past the empty chunk


def test_it_fetches_the_next_chunk_before_the_current_one_is_done():
    asked = [threading.Event() for _ in range(3)]
    calls = iter(range(3))

    def fetch():
        n = next(calls)
        asked[n].set()
        return [n] if n < 2 else []

    chunks = chunks_ahead(fetch)
    assert next(chunks) == [0]
    # Still holding chunk 0: the second fetch runs on the other thread meanwhile.
    assert asked[1].wait(timeout=10)
    assert next(chunks) == [1]
    assert asked[2].wait(timeout=10)
    assert list(chunks) == []


def test_a_fetch_still_running_has_ended_when_the_reader_is_closed_early():
    ended = threading.Event()
    calls = iter(range(3))

    def fetch():
        n = next(calls)
        if n == 1:
            ended.wait(timeout=0.2)  # still running when the reader is closed
            ended.set()
        return [n]

    chunks = chunks_ahead(fetch)
    assert next(chunks) == [0]
    chunks.close()
    # The cursor is closed right after this: no fetch may still be using it.
    assert ended.is_set()
