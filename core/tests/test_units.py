"""Human units, each expected value worked out by hand."""

from __future__ import annotations

from decimal import Decimal

import pytest

from core import units


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [
        (None, "–"),
        (0, "0 s"),
        (45, "45 s"),
        (59.4, "59 s"),
        (60, "1 min"),
        (720, "12 min"),  # 720 / 60
        (3599, "60 min"),  # 59.98 min, still under an hour
        (3600, "1 h"),
        (19800, "5.5 h"),  # 19800 / 3600
        (86400, "1 d"),
        (324915, "3.8 d"),  # 324915 / 86400 = 3.76
        (-720, "−12 min"),  # a change of wait in a what-if
    ],
)
def test_durations_read_in_the_largest_unit_they_fill(seconds, shown):
    assert units.human_duration(seconds) == shown


def test_the_exact_duration_is_whole_seconds():
    assert units.exact_duration(324915.4) == "324915 s"
    assert units.exact_duration(None) == "–"


@pytest.mark.parametrize(
    ("count", "shown"),
    [
        (549755813888, "512 Gi"),  # 512 × 2^30
        (Decimal(64 * 2**30), "64 Gi"),
        (3 * 2**39, "1.5 Ti"),  # 1.5 × 2^40
        (100 * 2**20, "100 Mi"),
        (512, "512 B"),
        (None, "–"),
    ],
)
def test_bytes_read_in_binary_units(count, shown):
    assert units.human_bytes(count) == shown


def test_money_is_dollars_to_the_cent():
    assert units.human_money(1320) == "$1,320.00"
    assert units.human_money(Decimal("2.5")) == "$2.50"
    assert units.human_money(-40) == "−$40.00"  # a saving in a what-if
    assert units.human_money(None) == "–"


def test_the_page_filters_put_the_exact_value_in_a_tooltip():
    from django.template import engines

    template = engines["django"].from_string(
        "{{ w|duration }} {{ m|binary_bytes }} {{ c|money }} {{ n|duration }}"
    )
    html = template.render({"w": 324915, "m": 549755813888, "c": 510, "n": None})
    assert html == (
        '<span title="324915 s">3.8 d</span> '
        '<span title="549,755,813,888 bytes">512 Gi</span> '
        '<span title="510.000000 USD">$510.00</span> –'
    )


def test_money_has_its_exact_value_past_the_cent():
    assert units.exact_money(2.5 * 8 / 3) == "6.666667 USD"
    assert units.exact_money(None) == "–"
