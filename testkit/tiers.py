"""Which tiers of the suite a pytest session ran (set by the root conftest)."""

from __future__ import annotations

import pytest

REAL_TIER_COMPLETE = pytest.StashKey[bool]()
"""True when the session ran every real-cluster test (the whole suite, nothing deselected)."""

DESELECTED = pytest.StashKey[bool]()
