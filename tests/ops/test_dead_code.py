"""Nothing defined outside the tests is left unused (issue 27): the check `make lint` runs.

scripts/dead_code.py says how uses are found (vulture, the tests counting as users) and
scripts/vulture_whitelist.py lists what a framework reaches by reflection.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_nothing_outside_the_tests_is_defined_and_never_used():
    check = subprocess.run(
        [sys.executable, "scripts/dead_code.py"], cwd=ROOT, capture_output=True, text=True
    )
    assert check.returncode == 0, f"dead code:\n{check.stdout}{check.stderr}"
