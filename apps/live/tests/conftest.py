"""Live-view settings; the cluster (``sim``) and ``preempting_vision`` are the test kit's."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _live_settings(settings):
    settings.QM_LIVE_CACHE_SECONDS = 1.0
