"""Summarise one run of Kueue's scheduler-performance harness (bench/kueue_harness.sh).

Reads the runner's artifacts (summary.yaml, minimalkueue.stats.yaml, the last
metrics scrape in metricsDump.tgz) and prints them next to Kueue's published
baseline averages and our replay (``bench/kueue_baseline.py --latency kueue``,
re-run here; deterministic, ~2 s). Run:
``.venv/bin/python bench/kueue_harness_summary.py RUN_DIR [--rangespec FILE]
[--kueue-version vX.Y.Z]``. The replay turns SchedulingEquivalenceHashing on or off
as that Kueue version does by default (off in v0.17, the version built here).
"""

from __future__ import annotations

import argparse
import csv
import re
import statistics
import sys
import tarfile
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.kueue_baseline import (  # noqa: E402
    BASELINE,
    HARNESS_CREATE_MS,
    KUEUE_WALL_S,
    LATENCIES,
    PUBLISHED_WITHOUT_HASHING,
    arrival_index,
    by_tens,
    hashing_by_default,
    run,
)

CLASSES = ("large", "medium", "small")
REASON = re.compile(r'"reason": "([^"]+)"')
WORKLOAD = re.compile(r'"workload": \{"name":"([^"]+)","namespace":"([^"]+)"\}')
STATUS_CHANGE = re.compile(r'"status": "([a-z]+)", "prevStatus": "([a-z]+)"')
SAMPLE = re.compile(r"^(?P<name>[a-z_]+)(?:\{(?P<labels>[^}]*)\})? (?P<value>\S+)")


def harness_figures(run_dir: Path) -> dict[str, Any]:
    """The figures Kueue's checker tests, from the runner's own files."""
    summary = yaml.safe_load((run_dir / "summary.yaml").read_text())
    stats = yaml.safe_load((run_dir / "minimalkueue.stats.yaml").read_text())
    usage = {}
    for name, cq in summary["clusterQueueClasses"].items():
        # The checker's formula: cpu-milliseconds used over quota times the class's span.
        span_ms = (
            _instant(cq["lastEventTime"]) - _instant(cq["firstEventTime"])
        ).total_seconds() * 1000
        usage[name] = cq["cpuUsed"] * 100 / (cq["nominalQuota"] * span_ms)
    return {
        "usage_pct": usage,
        "classes": summary["workloadClasses"],
        "dropped_events": summary.get("droppedWorkloadEvents", 0),
        "wall_s": stats["wallMs"] / 1000,
        "cpu_s": (stats["userMs"] + stats["sysMs"]) / 1000,
        "maxrss_mib": stats["maxrss"] / 1024,
    }


def large_wait_by_index(run_dir: Path) -> dict[int, float]:
    """Larges' mean time to admission per arrival index, from the runner's wlStates.csv."""
    path = run_dir / "wlStates.csv"
    if not path.exists():
        return {}
    waits: dict[int, list[int]] = {}
    with path.open(newline="") as rows:
        for row in csv.DictReader(rows):
            if row["class name"] == "large":
                waits.setdefault(arrival_index(row["name"]), []).append(int(row["ms to admitted"]))
    return {i: sum(v) / len(v) / 1000 for i, v in sorted(waits.items())}


def observed_arrivals(run_dir: Path) -> dict[str, int]:
    """When minimalkueue saw each workload created, in ms after generation began.

    Generation begins one small interval (100 ms) before the first creation seen.
    From minimalkueue's level-2 log ("Workload create event"); empty without it.
    """
    log = run_dir / "minimalkueue.err.log"
    if not log.exists():
        return {}
    seen: dict[str, datetime] = {}
    with log.open(errors="replace") as lines:
        for line in lines:
            if "\tWorkload create event\t" not in line:
                continue
            match = WORKLOAD.search(line)
            at = _log_time(line)
            if match and at:
                seen[f"{match[2]}/{match[1]}"] = at
    if not seen:
        return {}
    start = min(seen.values()).timestamp() - BASELINE.classes[0].interval_ms / 1000
    return {key: round((at.timestamp() - start) * 1000) for key, at in seen.items()}


def finish_delays(run_dir: Path) -> dict[str, tuple[float, float]]:
    """Per class, how long after its run time minimalkueue saw a workload finish,
    counted from when it saw the admission: (median, 90th percentile) in ms."""
    log = run_dir / "minimalkueue.err.log"
    if not log.exists():
        return {}
    admitted: dict[str, datetime] = {}
    delays: dict[str, list[float]] = {}
    runtime = {cls.name: cls.runtime_ms for cls in BASELINE.classes}
    with log.open(errors="replace") as lines:
        for line in lines:
            if "\tWorkload update event\t" not in line:
                continue
            who, change, at = WORKLOAD.search(line), STATUS_CHANGE.search(line), _log_time(line)
            if not (who and change and at):
                continue
            key, cls = f"{who[2]}/{who[1]}", who[1].split("-")[0]
            if change[1] == "admitted":
                admitted[key] = at
            elif change[1] == "finished" and key in admitted and cls in runtime:
                ran_ms = (at - admitted[key]).total_seconds() * 1000
                delays.setdefault(cls, []).append(ran_ms - runtime[cls])
    return {
        cls: (statistics.median(v), statistics.quantiles(v, n=10)[-1])
        for cls, v in delays.items()
        if len(v) > 1
    }


def _log_time(line: str) -> datetime | None:
    try:
        return _instant(line.split("\t", 1)[0])
    except ValueError:
        return None  # not a log record's first line


def arrival_drift(observed: dict[str, int]) -> dict[str, float]:
    """Per class, how much longer than its interval a workload set took per workload (ms)."""
    drift = {}
    for cls in BASELINE.classes:
        last = [
            at
            for key, at in observed.items()
            if f"/{cls.name}-" in key and arrival_index(key.split("/")[1]) == cls.count - 1
        ]
        if last:
            drift[cls.name] = sum(last) / len(last) / cls.count - cls.interval_ms
    return drift


def _instant(value: datetime | str) -> datetime:
    # Go writes RFC 3339 with nanoseconds; datetime keeps microseconds.
    if isinstance(value, datetime):
        return value
    trimmed = re.sub(r"(\.\d{6})\d+", r"\1", value).replace("Z", "+00:00")
    return datetime.fromisoformat(trimmed)


def last_scrape(run_dir: Path) -> dict[str, float]:
    """Kueue's counters at the last scrape (every 5 s), summed over their labels."""
    dump = run_dir / "metricsDump.tgz"
    if not dump.exists():
        return {}
    with tarfile.open(dump) as tar:
        members = [m for m in tar.getmembers() if m.name.endswith(".prometheus")]
        if not members:
            return {}
        newest = max(members, key=lambda m: int(Path(m.name).stem))
        text = tar.extractfile(newest).read().decode()
    totals: dict[str, float] = {}
    for line in text.splitlines():
        match = SAMPLE.match(line)
        if not match:
            continue
        key = match["name"]
        if key == "kueue_admission_attempts_total":
            key += "/" + re.search(r'result="([^"]*)"', match["labels"] or "")[1]
        totals[key] = totals.get(key, 0.0) + float(match["value"])
    return totals


def event_reasons(run_dir: Path) -> Counter[str]:
    """Kueue's Workload events by reason, from minimalkueue's log (level 2).

    "QuotaReserved"/"Admitted" come with each admission write and "Preempted"
    with each eviction patch; "Pending" with each head sent back to wait, whose
    status is patched only if it changed (so it bounds those writes from above).
    """
    log = run_dir / "minimalkueue.err.log"
    if not log.exists():
        return Counter()
    reasons: Counter[str] = Counter()
    with log.open(errors="replace") as lines:
        for line in lines:
            if "\tevents\t" in line:
                match = REASON.search(line)
                if match:
                    reasons[match[1]] += 1
    return reasons


def print_comparison(
    harness: dict[str, Any], model: dict[str, Any], bounds: dict, published: dict[str, float]
) -> None:
    rows = [
        ("ClusterQueue usage", "usage", "%", harness["usage_pct"]["cq"], model["avg_usage_pct"])
    ]
    for cls in CLASSES:
        seen = harness["classes"][cls]["averageTimeToAdmissionMs"] / 1000
        rows.append((f"time to admission {cls}", cls, "s", seen, model["avg_wait_s"][cls]))
    print(f"{'figure':<26}{'harness':>10}{'published':>18}{'our replay':>20}  rangespec")
    for label, key, unit, seen, ours in rows:
        bound = bounds["usage"] if key == "usage" else bounds["times"].get(key, float("nan"))
        sign = ">=" if key == "usage" else "<="
        print(
            f"{label:<26}{seen:>9.1f}{unit}{published[key]:>9.1f}{unit} ({_pct(seen, published[key])})"
            f"{ours:>10.1f}{unit} ({_pct(ours, seen)})  {sign} {bound:g}{unit}"
        )
    print(
        f"{'minimalkueue wall':<26}{harness['wall_s']:>9.1f}s{KUEUE_WALL_S:>9.1f}s"
        f" ({_pct(harness['wall_s'], KUEUE_WALL_S)}){model['virtual_s']:>10.1f}s virtual"
        f"  <= {bounds['wall_ms'] / 1000:g}s"
    )
    print("(published: % differences are the harness against Kueue's averages;")
    print(" our replay: % differences are the replay against this harness run)")


def _pct(value: float, reference: float) -> str:
    return f"{(value - reference) / reference * 100:+.0f}%"


def print_details(
    harness: dict[str, Any], metrics: dict[str, float], reasons: Counter[str]
) -> None:
    print(
        f"minimalkueue cpu {harness['cpu_s']:.1f} s (user+sys) over {harness['wall_s']:.1f} s wall,"
        f" max RSS {harness['maxrss_mib']:.0f} MiB; dropped recorder events {harness['dropped_events']}"
    )
    for cls in CLASSES:
        c = harness["classes"][cls]
        print(
            f"  {cls:<6} {c['count']:>5} workloads, avg to finish {c['averageTimeToFinishMs'] / 1000:.1f} s,"
            f" evictions {c['totalEvictions']}"
        )
    if reasons:
        print(
            "Workload events by reason: " + ", ".join(f"{r} {n}" for r, n in reasons.most_common())
        )
    if not metrics:
        return
    cycles = metrics.get("kueue_admission_attempt_duration_seconds_count", 0)
    cycle_s = metrics.get("kueue_admission_attempt_duration_seconds_sum", 0)
    print(
        f"scheduling cycles (admission attempts) {cycles:.0f}:"
        f" {metrics.get('kueue_admission_attempts_total/success', 0):.0f} admitting,"
        f" {metrics.get('kueue_admission_attempts_total/inadmissible', 0):.0f} not;"
        f" mean cycle {cycle_s / cycles if cycles else 0:.3f} s"
    )
    print(
        f"quota reservations {metrics.get('kueue_quota_reserved_workloads_total', 0):.0f},"
        f" evictions {metrics.get('kueue_evicted_workloads_total', 0):.0f},"
        f" preemptions {metrics.get('kueue_preempted_workloads_total', 0):.0f}"
        " (counters at the last 5 s scrape)"
    )


def read_bounds(rangespec: Path | None) -> dict[str, Any]:
    spec = yaml.safe_load(rangespec.read_text()) if rangespec else {}
    return {
        "usage": spec.get("clusterQueueClassesMinUsage", {}).get("cq", float("nan")),
        "times": {k: v / 1000 for k, v in spec.get("wlClassesMaxAvgTimeToAdmissionMs", {}).items()},
        "wall_ms": spec.get("cmd", {}).get("maxWallMs", float("nan")),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", type=Path, help="the runner's output directory (--o)")
    parser.add_argument("--rangespec", type=Path, help="the scenario's rangespec.yaml")
    parser.add_argument(
        "--kueue-version",
        default="v0.17.0",
        help="the Kueue the harness was built from (sets the replay's equivalence hashing)",
    )
    args = parser.parse_args(argv)
    for needed in ("summary.yaml", "minimalkueue.stats.yaml"):
        if not (args.run_dir / needed).is_file():
            parser.error(f"run_dir: no {needed} in {args.run_dir} (not a finished runner output)")
    if args.rangespec is not None and not args.rangespec.is_file():
        parser.error(f"--rangespec: no such file: {args.rangespec}")
    try:
        hashing = hashing_by_default(args.kueue_version)
    except ValueError:
        parser.error(f"--kueue-version: not a version like v0.17.0: {args.kueue_version}")
    try:
        harness = harness_figures(args.run_dir)
        by_index = large_wait_by_index(args.run_dir)
    except (KeyError, ValueError, TypeError, yaml.YAMLError) as error:
        parser.error(
            f"run_dir: the runner's files in {args.run_dir} are not as it writes them: {error!r}"
        )
    model = run(
        BASELINE, *LATENCIES["kueue"], equivalence_hashing=hashing, create_ms=HARNESS_CREATE_MS
    )
    observed = observed_arrivals(args.run_dir)
    expected = (
        BASELINE.cohorts * BASELINE.queues_per_cohort * sum(c.count for c in BASELINE.classes)
    )
    if observed and len(observed) != expected:
        print(
            f"minimalkueue's log names {len(observed)} of {expected} creations: no replay of them"
        )
        observed = {}
    for name in ("load-before.txt", "load-after.txt", "runner-wall-s.txt"):
        path = args.run_dir / name
        if path.exists():
            print(f"{name[:-4]}: {path.read_text().strip()}")
    published = BASELINE.published if hashing else PUBLISHED_WITHOUT_HASHING
    print_comparison(harness, model, read_bounds(args.rangespec), published)
    print(f"replay: equivalence hashing {'on' if hashing else 'off'} (Kueue {args.kueue_version})")
    profiles = [
        ("harness", by_index),
        ("replay", model["large_wait_by_index_s"]),
    ]
    if observed:
        drift = arrival_drift(observed)
        print(
            "the runner's arrivals ran late by "
            + ", ".join(f"{cls} {ms:+.0f} ms" for cls, ms in drift.items())
            + " per workload (time.After(interval), then a Create round trip);"
            " the replay of the harness's own arrivals:"
        )
        replayed = run(
            BASELINE, *LATENCIES["kueue"], equivalence_hashing=hashing, observed=observed
        )
        print_comparison(harness, replayed, read_bounds(args.rangespec), published)
        profiles.append(("replay of its arrivals", replayed["large_wait_by_index_s"]))
    for who, profile in profiles:
        if profile:
            tens = " / ".join(f"{g:.1f}" for g in by_tens(profile))
            print(f"large by arrival index, mean per ten ({who}): {tens} s")
    delays = finish_delays(args.run_dir)
    if delays:
        print(
            "finish seen after the run time (median / p90): "
            + ", ".join(f"{cls} {m:.0f} / {p:.0f} ms" for cls, (m, p) in delays.items())
        )
    print_details(harness, last_scrape(args.run_dir), event_reasons(args.run_dir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
