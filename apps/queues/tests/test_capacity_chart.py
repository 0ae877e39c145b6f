"""The overview's capacity chart: titled axes (plotly.js 3 ignores a plain-string title)
and bars that read without colour, on two rows worked by hand."""

from decimal import Decimal

from apps.queues.overview import CapacityRow, chart_data

ROWS = [
    CapacityRow("h100", "nvidia.com/gpu", Decimal(64), Decimal(48), Decimal(32)),
    CapacityRow("a100", "nvidia.com/gpu", Decimal(16), Decimal(8), Decimal(0)),
]


def test_the_capacity_chart_has_titled_axes_and_labelled_patterned_bars():
    spec = chart_data(ROWS)
    bars = {t["name"]: (t["y"], t["text"], t["marker"]["pattern"]["shape"]) for t in spec["data"]}
    assert bars == {
        "Physical capacity": ([64.0, 16.0], ["64", "16"], ""),
        "Reserved by all ClusterQueues": ([48.0, 8.0], ["48", "8"], "/"),
        "Lendable in cohorts": ([32.0, 0.0], ["32", "0"], "x"),
    }
    assert spec["data"][0]["x"] == ["h100 · nvidia.com/gpu", "a100 · nvidia.com/gpu"]
    assert spec["layout"]["xaxis"]["title"] == {"text": "flavor · resource"}
    assert spec["layout"]["yaxis"]["title"]["text"].startswith("amount (")
