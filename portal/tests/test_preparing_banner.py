"""While the demo week is prepared behind the portal, every page says how far it is."""

import pytest
from django.test import Client

from portal import preparing
from portal.demo.week import progress

pytestmark = pytest.mark.django_db


@pytest.fixture
def data_dir(tmp_path, settings):
    settings.DATA_DIR = tmp_path
    return tmp_path


def page(user, url: str = "/") -> str:
    client = Client()
    client.force_login(user)
    response = client.get(url, follow=True)
    assert response.status_code == 200
    return response.content.decode()


def test_every_page_shows_the_progress_then_nothing_when_done(data_dir, scientist, admin):
    preparing.write(data_dir, progress(2.5, 7))  # two and a half days of seven played
    for user, url in ((scientist, "/"), (scientist, "/reports/"), (admin, "/whatif/")):
        html = page(user, url)
        assert "Preparing the demo week: day 3 of 7 (35 %)" in html
        assert "reports and what-if will be ready when it finishes" in html
        assert '<progress value="35" max="100">' in html
    preparing.clear(data_dir)
    assert "Preparing the demo week" not in page(scientist)


def test_a_damaged_record_shows_no_banner_and_no_error(data_dir, scientist):
    preparing.path(data_dir).write_text('{"title": "x", "percent": "lots"')
    assert "Preparing" not in page(scientist)
    preparing.path(data_dir).write_text(
        '{"title": "<b>x</b>", "step": "s", "percent": 900, "note": "n"}'
    )
    html = page(scientist)
    assert "&lt;b&gt;x&lt;/b&gt;: s (100 %)" in html
