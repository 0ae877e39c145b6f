"""bench/make_test.py reads scripts/test.sh's own progress lines into step durations."""

from __future__ import annotations

import re
from pathlib import Path

from bench.make_test import pytest_summaries, step_durations

ROOT = Path(__file__).resolve().parents[2]
OUTPUT = [
    "== set-up: packages and services",
    "== conventions [3 s]",
    "All checks passed!",
    "== suite on PostgreSQL + Redis, simulated cluster [5 s]",
    "=============== 2650 passed, 36 deselected in 1358.00s (0:22:37) ===============",
    "== domain suite on SQLite [1368 s]",
    "== make test passed in 1890 s",
]


def test_each_step_lasts_until_the_next_one_and_the_last_until_the_end():
    # 5 - 3 = 2, 1368 - 5 = 1363, 1890 - 1368 = 522; the set-up line carries no time.
    assert step_durations(OUTPUT, 1890.0) == [
        ("conventions", 2.0),
        ("suite on PostgreSQL + Redis, simulated cluster", 1363.0),
        ("domain suite on SQLite", 522.0),
    ]


def test_pytest_counts_are_picked_from_its_closing_lines():
    assert pytest_summaries(OUTPUT) == ["2650 passed, 36 deselected"]


def test_the_script_still_prints_its_steps_as_the_bench_reads_them():
    script = (ROOT / "scripts" / "test.sh").read_text()
    timed = re.findall(r'^echo "== .+ \$\(elapsed\)"$', script, flags=re.M)
    assert len(timed) >= 6
    assert 'echo "== make test passed in $((SECONDS - started)) s"' in script
