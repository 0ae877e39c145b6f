"""Fixtures private to the what-if tests; the worker and the history are the test kit's."""

from __future__ import annotations

import pytest
from celery import current_app


@pytest.fixture
def eager_celery():
    """Tasks sent with .delay() run inline (tests without a worker only)."""
    current_app.conf.task_always_eager = True
    yield
    current_app.conf.task_always_eager = False
