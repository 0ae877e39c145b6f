"""``/metrics``: Prometheus text exposition (format 0.0.4) of the live series."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import ksm, series
from .series import WAIT, WAIT_BUCKETS, Family, Labels

if TYPE_CHECKING:
    from .controller import Controller


def render(ctl: Controller) -> str:
    with ctl.lock:
        view = series.snapshot(ctl)
        now = ctl.clock.now_ms()
    lines: list[str] = []
    for family, samples in [*series.live(view, now), *ksm.live(view, now)]:
        lines += header(family)
        lines += [
            f"{family.name}{labels_text(labels)} {number(value)}" for labels, value in samples
        ]
    lines += header(WAIT)
    for labels, (buckets, count, total) in sorted(series.wait_histograms(view.waits, now).items()):
        lines += histogram_lines(labels, buckets, count, total, "")
    return "\n".join(lines) + "\n"


def header(family: Family) -> list[str]:
    return [f"# HELP {family.name} {family.help}", f"# TYPE {family.name} {family.kind}"]


def histogram_lines(
    labels: Labels, buckets: list[int], count: int, total: float, suffix: str
) -> list[str]:
    """``_bucket`` lines (cumulative, ``+Inf`` last), then ``_sum`` and ``_count``; ``suffix`` is a timestamp."""
    name = WAIT.name
    lines = [
        f"{name}_bucket{labels_text((*labels, ('le', bound_text(bound))))} {n}{suffix}"
        for bound, n in zip(WAIT_BUCKETS, buckets, strict=True)
    ]
    lines.append(f"{name}_bucket{labels_text((*labels, ('le', '+Inf')))} {count}{suffix}")
    lines.append(f"{name}_sum{labels_text(labels)} {number(total)}{suffix}")
    lines.append(f"{name}_count{labels_text(labels)} {count}{suffix}")
    return lines


def labels_text(labels: Labels) -> str:
    if not labels:
        return ""
    return "{" + ",".join(f'{k}="{escape(v)}"' for k, v in labels) + "}"


def escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def bound_text(bound: float) -> str:
    # OpenMetrics wants canonical floats for le ("1.0", "2.5").
    return repr(float(bound))
