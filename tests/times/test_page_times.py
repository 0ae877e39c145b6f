"""Pages show times one way, through ``|when`` (``2026-12-04 14:39 UTC``): no ``+00:00``
and no bare ISO 8601 time in the text people read."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from django.utils import timezone

from apps.jobs.models import BatchJob, Notebook
from apps.queues.models import Queue
from apps.reports.compute.weeks import week_of
from apps.whatif.models import WhatIfRun

pytestmark = pytest.mark.django_db

BARE_ISO = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d")
ONE_FORM = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)? UTC")


class _Text(HTMLParser):
    """The text of a page outside scripts and styles (what a reader sees)."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag, attrs) -> None:
        self._hidden += tag in ("script", "style")

    def handle_endtag(self, tag) -> None:
        self._hidden -= tag in ("script", "style")

    def handle_data(self, data) -> None:
        if not self._hidden:
            self.parts.append(data)


def text_of(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    return " ".join(parser.parts)


def main_pages() -> list[str]:
    return [
        "/", "/notebooks/", f"/notebooks/{Notebook.objects.get().pk}/", "/jobs/",
        f"/jobs/{BatchJob.objects.get().pk}/", "/change-requests/", "/audit/",
        f"/queues/{Queue.objects.get(name='vision').pk}/", "/teams/vision/",
        "/teams/vision/audit/", f"/reports/{week_of(timezone.now())}/", "/reports/trend/",
        "/whatif/", f"/whatif/{WhatIfRun.objects.get().pk}/", "/live/", "/tokens/",
    ]  # fmt: skip


def test_main_pages_show_every_time_with_its_zone(seeded_world, client):
    client.force_login(seeded_world)
    shown = {}
    for url in main_pages():
        response = client.get(url)
        assert response.status_code == 200, url
        text = text_of(response.content.decode())
        assert "+00:00" not in text, url
        assert not BARE_ISO.search(text), (url, BARE_ISO.findall(text))
        shown[url] = ONE_FORM.findall(text)
    # Not vacuous: pages with timed rows did show times, in the one form.
    assert all(shown[url] for url in ("/notebooks/", "/jobs/", "/audit/", "/whatif/")), shown
