"""Per-scenario results (engine vs Kueue) and the summary printed at the end.

Each scenario's real outcome is compared with two engine runs: ``observed``
replays each job with the run time Kueue's job actually had (admission to
Finished, so KWOK's pod latency does not count against the engine), and
``nominal`` uses the scenario's durations plus a fixed overhead.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .compare import ASPECTS, compare, timeline
from .outcome import Outcome
from .run_engine import run_engine
from .scenarios import Scenario, duration_seconds

MODES = ("observed", "nominal")
# A real cluster admits a few hundred ms after the engine would, so a job can end just
# before an arrival in the engine and just after it in Kueue. A disagreement that one
# of these uniform shifts of every run time (seconds) removes is a timing race.
SHIFTS = (0.5, 1.0, -0.5, -1.0, 2.0)


def observed_durations(real: Outcome) -> dict[str, float]:
    return {name: job.run_s for name, job in real.jobs.items() if job.run_s is not None}


def evaluate(
    scenario: Scenario, real: Outcome, *, overhead_s: float, pod_stop_s: float
) -> dict[str, Any]:
    """Both engine runs of ``scenario`` and their comparisons with ``real``."""
    nominal = {
        scenario.short(j["metadata"]["name"]): duration_seconds(j) + overhead_s
        for j in scenario.jobs
    }
    observed = {**nominal, **observed_durations(real)}
    record: dict[str, Any] = {
        "seed": scenario.seed,
        "fair_sharing": scenario.fair_sharing,
        "jobs": len(scenario.jobs),
        "real": real.to_dict(),
    }
    for mode, durations in (("observed", observed), ("nominal", nominal)):
        engine = run_engine(scenario, durations=durations, pod_stop_s=pod_stop_s)
        result = compare(engine, real)
        record[mode] = {
            "engine": engine.to_dict(),
            "agrees": result.agrees,
            "aspects": result.aspects(),
            "order_score": round(result.order_score, 3),
            "order_pairs": result.order_pairs,
            "diff": result.diff,
            "timeline": timeline(engine, real) if not result.agrees else [],
        }
    record["race_shift"] = None
    if not record["observed"]["agrees"]:
        record["race_shift"] = race_shift(scenario, real, observed, pod_stop_s)
    return record


def race_shift(
    scenario: Scenario, real: Outcome, durations: dict[str, float], pod_stop_s: float
) -> float | None:
    """The first of ``SHIFTS`` that makes the engine agree with ``real``, if any."""
    for shift in SHIFTS:
        shifted = {name: seconds + shift for name, seconds in durations.items()}
        engine = run_engine(scenario, durations=shifted, pod_stop_s=pod_stop_s)
        if compare(engine, real).agrees:
            return shift
    return None


def reevaluate(records: list[dict[str, Any]], **kwargs: float) -> list[dict[str, Any]]:
    """Compare stored real outcomes with today's engine (no cluster needed)."""
    from .scenarios import generate

    return [
        {**evaluate(generate(r["seed"]), Outcome.from_dict(r["real"]), **kwargs), **_extra(r)}
        for r in records
    ]


def _extra(record: dict[str, Any]) -> dict[str, Any]:
    return {key: record[key] for key in ("wall_s",) if key in record}


def summary(records: list[dict[str, Any]]) -> list[str]:
    """Agreement per aspect and mode, then every disagreement with its seed."""
    lines = [f"scenarios: {len(records)}"]
    if not records:
        return lines
    for mode in MODES:
        agree = sum(r[mode]["agrees"] for r in records)
        parts = [f"{mode}: all aspects {agree}/{len(records)}"]
        for aspect in ASPECTS:
            count = sum(r[mode]["aspects"][aspect] for r in records)
            parts.append(f"{aspect} {count}/{len(records)}")
        scores = [r[mode]["order_score"] for r in records]
        parts.append(f"mean order score {sum(scores) / len(scores):.3f}")
        lines.append(", ".join(parts))
    races = [r["seed"] for r in records if r.get("race_shift") is not None]
    strict = sum(r["observed"]["agrees"] for r in records)
    lines.append(
        f"observed, timing races forgiven: {strict + len(races)}/{len(records)} "
        f"(races, agreeing once every run time shifts by <= 2 s: {races})"
    )
    incomplete = [r["seed"] for r in records if not r["real"]["complete"]]
    if incomplete:
        lines.append(f"real runs that hit their deadline: {incomplete}")
    for record in records:
        result = record["observed"]
        if not result["agrees"]:
            flag = "FS" if record["fair_sharing"] else "no-FS"
            race = record.get("race_shift")
            kind = f"timing race, agrees at {race:+g}s" if race is not None else "logic"
            lines.append(
                f"-- seed {record['seed']} ({flag}, {kind}; replay: --only {record['seed']})"
            )
            lines += ["   " + line for line in result["diff"]]
    return lines


def load(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return json.loads(path.read_text())["scenarios"]


def save(path: Path, records: list[dict[str, Any]], meta: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    records = sorted({r["seed"]: r for r in records}.values(), key=lambda r: r["seed"])
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"meta": meta, "scenarios": records}, indent=1))
    tmp.replace(path)
