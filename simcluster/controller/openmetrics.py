"""Write recorded history as OpenMetrics text for ``promtool tsdb create-blocks-from openmetrics``.

promtool's rules (see the Prometheus recipe): timestamps in seconds, each
series in strictly increasing time order (older or equal samples are
dropped silently), one contiguous block per metric family, ``# EOF`` last,
``\\n`` line ends, no blank lines.
"""

from __future__ import annotations

from typing import IO

from . import catalog, ksm, series
from .metrics import header, histogram_lines, labels_text, number
from .series import (
    ALLOCATION,
    COST,
    GAUGE_HELP,
    GPU_COUNT,
    GPU_FAMILIES,
    WAIT,
    WAIT_BUCKETS,
    Family,
    Labels,
    View,
)


def write(view: View, start_ms: int, end_ms: int, step_ms: int, out: IO[str]) -> int:
    """Write every family over ``[start_ms, end_ms]`` every ``step_ms``; returns the sample count."""
    written = 0
    for family in GPU_FAMILIES:
        written += _family(out, family, series.history_gpu(view, family, start_ms, end_ms, step_ms))
    written += _family(out, COST, _node_series(view, start_ms, end_ms, step_ms, cost=True))
    written += _family(out, GPU_COUNT, _node_series(view, start_ms, end_ms, step_ms, cost=False))
    written += _family(out, ALLOCATION, series.history_allocation(view, start_ms, end_ms, step_ms))
    written += _family(
        out, ksm.NODE_LABELS, _node_series(view, start_ms, end_ms, step_ms, cost=None)
    )
    written += _family(out, ksm.ALLOCATABLE, _allocatable(view, start_ms, end_ms, step_ms))
    for family, spans in ksm.placement_spans(view).items():
        written += _family(out, family, ksm.history_spans(spans, start_ms, end_ms, step_ms))
    written += _family(out, ksm.POD_OWNER, ksm.history_owners(view, start_ms, end_ms, step_ms))
    for name, help_text in GAUGE_HELP.items():
        points = (
            (labels, series.history_steps(p, start_ms, end_ms, step_ms))
            for (n, labels), p in sorted(view.gauges.items())
            if n == name
        )
        written += _family(out, Family(name, "gauge", help_text), points)
    written += _waits(out, view, start_ms, end_ms, step_ms)
    out.write("# EOF\n")
    return written


def _family(out: IO[str], family: Family, rows) -> int:
    count = 0
    for index, (labels, points) in enumerate(rows):
        if index == 0:
            out.write("\n".join(header(family)) + "\n")
        prefix = f"{family.name}{labels_text(labels)} "
        out.write("".join(f"{prefix}{number(v)} {seconds(at)}\n" for at, v in points))
        count += len(points)
    return count


def _node_series(view: View, start: int, end: int, step: int, cost: bool | None):
    """Per GPU node: its price (``cost``), GPU count (not ``cost``) or labels (None)."""
    for node in sorted(view.node_gpus):
        if cost is None:
            labels, value = ksm.node_label_labels(node, view.nodes[node]), 1.0
        else:
            labels = series.node_cost_labels(node, view.nodes[node])
            value = (
                catalog.price_for(view.prices, view.nodes[node]) if cost else view.node_gpus[node]
            )
        yield labels, [(at, value) for at in range(start, end + 1, step)]


def _allocatable(view: View, start: int, end: int, step: int):
    for node, per in sorted(view.node_resources.items()):
        for resource, units in sorted(per.items()):
            points = [(at, units) for at in range(start, end + 1, step)]
            yield ksm.allocatable_labels(node, resource), points


def _waits(out: IO[str], view: View, start: int, end: int, step: int) -> int:
    """Cumulative histograms per (cluster_queue, priority_class), from the first admission on."""
    per_key: dict[Labels, list[tuple[int, float]]] = {}
    for at, cq, pclass, seconds_waited in view.waits:
        per_key.setdefault((("cluster_queue", cq), ("priority_class", pclass)), []).append(
            (at, seconds_waited)
        )
    if not per_key:
        return 0
    out.write("\n".join(header(WAIT)) + "\n")
    count = 0
    for key in sorted(per_key):
        count += _one_histogram(out, key, per_key[key], start, end, step)
    return count


def _one_histogram(
    out: IO[str], key: Labels, waits: list[tuple[int, float]], start: int, end: int, step: int
) -> int:
    buckets, total_count, total, index, count = [0] * len(WAIT_BUCKETS), 0, 0.0, 0, 0
    for at in range(_align(start, step, waits[0][0]), end + 1, step):
        while index < len(waits) and waits[index][0] <= at:
            waited = waits[index][1]
            for i, bound in enumerate(WAIT_BUCKETS):
                buckets[i] += waited <= bound
            total_count, total, index = total_count + 1, total + waited, index + 1
        out.write(
            "\n".join(histogram_lines(key, buckets, total_count, total, f" {seconds(at)}")) + "\n"
        )
        count += len(buckets) + 3
    return count


def _align(start: int, step: int, at: int) -> int:
    return start + max(0, -(-(at - start) // step)) * step


def seconds(at_ms: int) -> str:
    return str(at_ms // 1000) if at_ms % 1000 == 0 else f"{at_ms / 1000:.3f}"
