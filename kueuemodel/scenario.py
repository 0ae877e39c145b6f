"""Run a multi-document YAML snapshot of a cluster through the simulator.

``python -m simcluster run SCENARIO.yaml [--until DURATION] [-o json|yaml]``
prints the resulting Workloads as a ``kind: List``, like
``kubectl get workloads -A -o json``.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import yaml

from .clock import parse_duration
from .simulation import NEXT_INSTANT_MS, Simulation, arrival_offset


def load_objects(yaml_text: str) -> list[dict[str, Any]]:
    """Every non-empty document; ``kind: List`` documents are flattened."""
    objects: list[dict[str, Any]] = []
    for doc in yaml.safe_load_all(yaml_text):
        if not doc:
            continue
        if doc.get("kind") == "List" or (doc.get("kind", "").endswith("List") and "items" in doc):
            objects.extend(doc.get("items") or [])
        else:
            objects.append(doc)
    return objects


def build_simulation(
    yaml_text: str,
    *,
    record_events: bool = True,
    pod_stop_ms: int = NEXT_INSTANT_MS,
    equivalence_hashing: bool = True,
) -> Simulation:
    """A simulation at the scenario's start, with delayed arrivals scheduled."""
    objects = load_objects(yaml_text)
    now_objects = [o for o in objects if arrival_offset(o) is None]
    sim = Simulation(
        now_objects,
        record_events=record_events,
        pod_stop_ms=pod_stop_ms,
        equivalence_hashing=equivalence_hashing,
    )
    start = sim.cluster.now_ms
    trace = [(start + arrival_offset(o), o) for o in objects if arrival_offset(o) is not None]
    sim.add_arrivals(trace)
    return sim


def run_scenario(yaml_text: str, until: str | int | None = None) -> list[dict[str, Any]]:
    """Simulate to quiescence (or ``until``, a duration after the start); return Workloads."""
    sim = build_simulation(yaml_text)
    limit = None
    if until is not None:
        limit = sim.cluster.now_ms + (until if isinstance(until, int) else parse_duration(until))
    sim.run(limit)
    return sim.workloads()


def as_list(items: list[dict[str, Any]]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": items}


def main(argv: list[str] | None = None) -> int:
    """CLI for ``python -m simcluster run``; ``argv`` excludes the ``run`` word."""
    parser = argparse.ArgumentParser(
        prog="python -m simcluster run", description=__doc__.splitlines()[0]
    )
    parser.add_argument("scenario", help="multi-document YAML file ('-' for stdin)")
    parser.add_argument("--until", help="stop after this much virtual time (e.g. 2h, 90s)")
    parser.add_argument("-o", "--output", choices=("json", "yaml"), default="json")
    args = parser.parse_args(argv)
    text = sys.stdin.read() if args.scenario == "-" else _read(args.scenario)
    result = as_list(run_scenario(text, args.until))
    if args.output == "json":
        json.dump(result, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        yaml.safe_dump(result, sys.stdout, sort_keys=False)
    return 0


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as handle:
        return handle.read()
