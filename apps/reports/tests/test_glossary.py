"""Each figure is defined once, on the glossary page the report and the what-if link to;
"utilisation" means one thing (the report's DCGM ratio) and the what-if's share of
capacity has its own name."""

from __future__ import annotations

import re

from apps.reports.glossary import TERMS
from testkit.promdata import WEEK


def test_every_term_has_one_anchor_and_the_page_lists_them(client, scientist):
    anchors = [t.anchor for t in TERMS]
    assert len(anchors) == len(set(anchors))
    client.force_login(scientist)
    page = client.get("/reports/glossary/").content.decode()
    assert re.findall(r'<dt id="([a-z-]+)">', page) == anchors


def test_the_report_links_to_the_definitions_it_uses(stored, client, scientist):
    client.force_login(scientist)
    page = client.get(f"/reports/{WEEK}/").content.decode()
    linked = set(re.findall(r'href="/reports/glossary/#([a-z-]+)"', page))
    assert "utilisation" in linked
    assert linked <= {t.anchor for t in TERMS}
    assert 'href="/reports/glossary/"' in page


def test_utilisation_is_defined_once_and_only_for_the_report():
    (utilisation,) = [t for t in TERMS if t.name == "Utilisation"]
    assert "DCGM" in utilisation.definition and utilisation.shown_on == "weekly report"
    (capacity,) = [t for t in TERMS if t.anchor == "capacity-share"]
    assert capacity.shown_on == "what-if"
