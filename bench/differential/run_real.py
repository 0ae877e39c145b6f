"""Run a scenario on a running real control plane, in real time.

The scenario's setup objects are applied, its ClusterQueues waited for, and each
Job created at its arrival offset; a ``ScenarioTracker`` subscribed to the shared
``WorkloadWatch`` records what Kueue did until every job finished (or a deadline).
The scenario's objects are then deleted without waiting.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import Any, Protocol

from kubernetes import client

from .outcome import Outcome
from .scenarios import SCENARIO_LABEL, Scenario, arrival_seconds, duration_seconds
from .watch import GROUP, VERSION, ScenarioTracker, WorkloadWatch, api_client

log = logging.getLogger(__name__)
CLUSTER_KINDS = "clusterqueues,cohorts,resourceflavors,topologies,workloadpriorityclasses,nodes"
# Offset of the scenario's time zero after a whole second: a Job due at second n is
# created in second n, so Kueue's whole-second creationTimestamps order jobs as planned.
START_SLACK_S = 0.05
STOP = threading.Event()
"""Set to make every running scenario give up (Ctrl-C)."""


class Stopped(Exception):
    """The run was asked to stop."""


def _sleep(seconds: float) -> None:
    if STOP.wait(max(0.0, seconds)):
        raise Stopped


class Plane(Protocol):
    """What a runner needs of ``realcluster.controlplane.ControlPlane``."""

    kubeconfig: Path

    def apply(self, objects: list[dict]) -> None: ...

    def kubectl(self, *args: str, stdin: str | None = None) -> Any: ...


def deadline_seconds(scenario: Scenario, cap: float) -> float:
    """Last arrival + 3x the total duration + 60 s, at most ``cap``."""
    jobs = scenario.jobs
    total = sum(duration_seconds(j) for j in jobs)
    return min(cap, max(arrival_seconds(j) for j in jobs) + 3 * total + 60)


def run_real(
    plane: Plane, workloads: WorkloadWatch, scenario: Scenario, *, cap_s: float = 900.0
) -> Outcome:
    """Run ``scenario`` on ``plane`` and return what real Kueue did."""
    api = api_client(plane.kubeconfig)
    try:
        plane.apply(scenario.setup)
        if any(o["kind"] == "Node" for o in scenario.setup):  # a topology scenario's own
            untaint_nodes(plane, f"{SCENARIO_LABEL}={scenario.prefix.rstrip('-')}")
        _wait_active(api, scenario)
        start = _aligned_start()
        tracker = ScenarioTracker(scenario, start)
        workloads.subscribe(scenario.namespace, tracker)
        _create_jobs(api, scenario, start)
        complete = _wait_done(tracker, start + deadline_seconds(scenario, cap_s))
        _sleep(1.0)  # let the last watch events land
        workloads.unsubscribe(scenario.namespace)
        return tracker.outcome(complete=complete)
    finally:
        workloads.unsubscribe(scenario.namespace)
        cleanup(plane, scenario)
        api.close()


def _aligned_start() -> float:
    now = time.time()
    return int(now) + 1 + START_SLACK_S


def _wait_active(api: client.ApiClient, scenario: Scenario, timeout: float = 60.0) -> None:
    """Until Kueue reports every ClusterQueue of the scenario Active."""
    custom = client.CustomObjectsApi(api)
    selector = f"{SCENARIO_LABEL}={scenario.prefix.rstrip('-')}"
    wanted = sum(1 for o in scenario.setup if o["kind"] == "ClusterQueue")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        listed = custom.list_cluster_custom_object(
            GROUP, VERSION, "clusterqueues", label_selector=selector
        )
        active = [cq for cq in listed["items"] if _condition_true(cq, "Active")]
        if len(active) == wanted:
            return
        _sleep(0.5)
    raise TimeoutError(f"scenario {scenario.seed}: ClusterQueues not active in {timeout}s")


def _condition_true(obj: dict[str, Any], kind: str) -> bool:
    conditions = (obj.get("status") or {}).get("conditions") or ()
    return any(c["type"] == kind and c["status"] == "True" for c in conditions)


def _create_jobs(api: client.ApiClient, scenario: Scenario, start: float) -> None:
    batch = client.BatchV1Api(api)
    for job in scenario.jobs:
        _sleep(start + arrival_seconds(job) - time.time())
        batch.create_namespaced_job(scenario.namespace, job)


def _wait_done(tracker: ScenarioTracker, deadline: float) -> bool:
    while time.time() < deadline:
        if tracker.done():
            return True
        _sleep(1.0)
    return tracker.done()


def untaint_nodes(plane: Plane, selector: str, timeout: float = 60.0) -> None:
    """New nodes carry the not-ready taint until the node lifecycle controller sees
    them Ready; take it off if that controller is not running."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        listed = plane.kubectl("get", "nodes", "-l", selector, "-o", "jsonpath={..taints}")
        if listed.returncode == 0 and not listed.stdout.strip():
            return
        time.sleep(2.0)
    taint = "node.kubernetes.io/not-ready:NoSchedule-"
    plane.kubectl("taint", "nodes", "-l", selector, taint, "--overwrite")


def cleanup(plane: Plane, scenario: Scenario) -> None:
    """Delete the scenario's namespace and cluster-scoped objects, without waiting."""
    selector = f"{SCENARIO_LABEL}={scenario.prefix.rstrip('-')}"
    for args in (
        ("delete", "namespace", scenario.namespace, "--wait=false", "--ignore-not-found"),
        ("delete", CLUSTER_KINDS, "-l", selector, "--wait=false", "--ignore-not-found"),
    ):
        done = plane.kubectl(*args)
        if done.returncode != 0:
            log.warning("cleanup of scenario %s: %s", scenario.seed, done.stderr.strip())
