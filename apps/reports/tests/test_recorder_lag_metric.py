"""/metrics reports how long ago the history recorder last saved its cursor."""

from datetime import timedelta

import pytest
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

from apps.reports.recorder import CURSOR
from informer.cursors import cursor, save_cursor
from informer.models import WatchCursor

pytestmark = pytest.mark.django_db
LAG = "qm_history_recorder_lag_seconds"


def scrape_lag(client) -> float | None:
    response = client.get("/metrics")
    assert response.status_code == 200
    for family in text_string_to_metric_families(response.content.decode()):
        if family.name == LAG:
            (sample,) = family.samples
            return sample.value
    return None


def test_there_is_no_lag_before_the_recorder_ever_ran(client):
    assert scrape_lag(client) is None


def test_the_lag_grows_until_the_recorder_saves_its_cursor(client):
    cursor(CURSOR)
    WatchCursor.objects.filter(name=CURSOR).update(updated_at=timezone.now() - timedelta(hours=1))
    assert scrape_lag(client) >= 3600

    save_cursor(CURSOR, "1234", events=3)
    assert scrape_lag(client) < 3600
