"""``python -m bench.differential --scenarios 200 --seed 1 --parallel 6 --out var/differential.json``

Runs N random scenarios on a real control plane (one per fair-sharing setting,
started in turn; several scenarios at once on each) and through the engine, and
prints agreement per aspect and every disagreement with its seed. ``--only SEED``
replays one scenario; ``--recompare`` compares the stored real outcomes in
``--out`` with today's engine without a cluster; results already in ``--out``
are kept and not run again.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any

from . import report
from .outcome import Outcome
from .run_real import STOP, Plane, run_real, untaint_nodes
from .scenarios import (
    AFS_FROM,
    NESTED_FROM,
    POOL_LABEL,
    TAS_FROM,
    Scenario,
    generate,
    pool_nodes,
)
from .watch import WorkloadWatch

log = logging.getLogger("bench.differential")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench.differential", description=__doc__)
    parser.add_argument("--scenarios", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1, help="scenario seeds are SEED*10000+i")
    parser.add_argument(
        "--nested",
        action="store_true",
        help=f"two-level cohort trees: seeds {NESTED_FROM:,}+SEED*10000+i",
    )
    parser.add_argument(
        "--tas",
        action="store_true",
        help=f"topology-aware scenarios (Kueue TAS): seeds {TAS_FROM:,}+SEED*10000+i",
    )
    parser.add_argument(
        "--afs",
        action="store_true",
        help=f"AdmissionFairSharing scenarios (users' LocalQueues): seeds {AFS_FROM:,}+SEED*10000+i",
    )
    parser.add_argument("--only", type=int, action="append", help="run just this scenario seed")
    parser.add_argument("--parallel", type=int, default=6, help="scenarios at once per cluster")
    parser.add_argument("--out", type=Path, default=Path("var/differential.json"))
    parser.add_argument("--workdir", type=Path, default=Path("var/differential-plane"))
    parser.add_argument("--budget-minutes", type=float, default=None, help="stop starting new ones")
    parser.add_argument("--cap-seconds", type=float, default=900, help="longest real run of one")
    parser.add_argument("--overhead", type=float, default=1.5, help="nominal mode: s added per run")
    parser.add_argument("--pod-stop", type=float, default=1.0, help="engine: s for pods to stop")
    parser.add_argument("--recompare", action="store_true", help="re-run only the engine side")
    parser.add_argument("--dump", type=int, help="print SEED as an engine scenario YAML")
    return parser


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    args = _parser().parse_args(argv)
    tuning = {"overhead_s": args.overhead, "pod_stop_s": args.pod_stop}
    records = report.load(args.out)
    if args.dump is not None:
        print(_dump(args.dump, records))
        return 0
    if args.recompare:
        records = report.reevaluate(records, **tuning)
        report.save(args.out, records, {"recompared": time.strftime("%FT%TZ", time.gmtime())})
    else:
        records = _run(args, records, tuning)
    print("\n".join(report.summary(records)))
    return 0


def _run(args: argparse.Namespace, records: list[dict[str, Any]], tuning: dict) -> list[dict]:
    family = AFS_FROM if args.afs else TAS_FROM if args.tas else NESTED_FROM if args.nested else 0
    first = args.seed * 10000 + family
    seeds = args.only or [first + i for i in range(args.scenarios)]
    done = {r["seed"] for r in records}
    todo = [generate(seed) for seed in seeds if seed not in done]
    started = time.monotonic()
    budget = args.budget_minutes * 60 if args.budget_minutes else None
    meta = {"started": time.strftime("%FT%TZ", time.gmtime()), "parallel": args.parallel}
    groups = [(False, False), (False, True), (True, False)]  # (fair sharing, AFS) per plane
    for index, (fair, afs) in enumerate(groups):
        group = [s for s in todo if (s.fair_sharing, s.admission_fair_sharing) == (fair, afs)]
        if not group:
            continue
        # Share what is left of the budget between the groups by their sizes.
        left = None if budget is None else budget - (time.monotonic() - started)
        if left is not None and index < len(groups) - 1:
            left *= len(group) / len(todo)
        records += _run_group(args, group, (fair, afs), left, tuning)
        meta.update(wall_s=round(time.monotonic() - started), load=os.getloadavg())
        report.save(args.out, [*records], meta)
    return records


def _run_group(
    args: argparse.Namespace,
    group: list[Scenario],
    settings: tuple[bool, bool],
    budget_s: float | None,
    tuning: dict,
) -> list[dict[str, Any]]:
    from realcluster.controlplane import ControlPlane

    _wait_for_binaries()
    fair, afs = settings
    workdir = args.workdir.resolve()
    plane = ControlPlane(workdir, fair_sharing=fair, admission_fair_sharing=afs).up()
    log.info(
        "control plane up (fair sharing %s, AFS %s) in %.0fs", fair, afs, plane.startup_seconds
    )
    results: list[dict[str, Any]] = []
    try:
        plane.apply(pool_nodes())
        untaint_nodes(plane, POOL_LABEL)
        workloads = WorkloadWatch(plane.kubeconfig).start()
        deadline = None if budget_s is None else time.monotonic() + budget_s
        with ThreadPoolExecutor(args.parallel) as pool:
            try:
                _drain(args, plane, workloads, group, pool, deadline, tuning, results)
            except KeyboardInterrupt:
                STOP.set()  # the running scenarios give up; the plane goes down below
                raise
        workloads.stop()
    finally:
        plane.down()
    return results


def _drain(
    args: argparse.Namespace,
    plane: Plane,
    workloads: WorkloadWatch,
    group: list[Scenario],
    pool: ThreadPoolExecutor,
    deadline: float | None,
    tuning: dict,
    results: list[dict[str, Any]],
) -> None:
    """Keep ``--parallel`` scenarios running until the group (or the budget) is done."""
    pending: dict[Future, Scenario] = {}
    queue = list(group)
    while queue or pending:
        while queue and len(pending) < args.parallel:
            if deadline is not None and time.monotonic() > deadline:
                log.info("budget spent: %d scenarios of this group not started", len(queue))
                queue = []
                break
            scenario = queue.pop(0)
            pending[pool.submit(_one, plane, workloads, scenario, args.cap_seconds)] = scenario
        if not pending:
            break
        finished, _ = wait(pending, return_when=FIRST_COMPLETED)
        for future in finished:
            scenario = pending.pop(future)
            try:
                real, wall = future.result()
            except Exception:
                log.exception("scenario %s failed on the real cluster", scenario.seed)
                continue
            record = report.evaluate(scenario, real, **tuning)
            record["wall_s"] = round(wall, 1)
            results.append(record)
            verdict = "agrees" if record["observed"]["agrees"] else "DIFFERS"
            log.info(
                "seed %s: %s (%.0fs, load %.1f)", scenario.seed, verdict, wall, os.getloadavg()[0]
            )
            report.save(args.out, [*report.load(args.out), record], {})


def _one(
    plane: Plane, workloads: WorkloadWatch, scenario: Scenario, cap_s: float
) -> tuple[Outcome, float]:
    started = time.monotonic()
    real = run_real(plane, workloads, scenario, cap_s=cap_s)
    return real, time.monotonic() - started


def _dump(seed: int, records: list[dict[str, Any]]) -> str:
    """The scenario as ``python -m simcluster run`` reads it, with the run times
    observed on the real cluster when ``--out`` has them."""
    import yaml

    from .run_engine import engine_objects

    real = next((r["real"] for r in records if r["seed"] == seed), None)
    durations = report.observed_durations(Outcome.from_dict(real)) if real else None
    return yaml.safe_dump_all(engine_objects(generate(seed), durations), sort_keys=False)


def _wait_for_binaries(poll_s: float = 60.0) -> None:
    """The control plane's binaries may still be building: never start a second build."""
    from realcluster import build_info

    while not build_info.is_built():
        log.info("waiting for the realcluster build (%s)", build_info.install_dir())
        time.sleep(poll_s)


if __name__ == "__main__":
    sys.exit(main())
