"""One watch on every Workload of a real cluster, fanned out to per-scenario trackers.

A tracker turns the Workload objects it is shown into transitions (admitted,
evicted, finished) by their conditions' ``lastTransitionTime``: a condition that
turned True with a time not seen before is a new transition. Seeing the same
object twice (a re-list after a broken watch) therefore records nothing twice.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kubernetes import client, config, watch
from kubernetes.client.exceptions import ApiException

from kueuemodel import parse_timestamp

from .outcome import Outcome, OutcomeBuilder, preemptor_uid
from .scenarios import Scenario

log = logging.getLogger(__name__)
GROUP, VERSION, PLURAL = "kueue.x-k8s.io", "v1beta2", "workloads"
Sink = Callable[[dict[str, Any], float], None]
# Watch events normally arrive within milliseconds; older than this, the condition's
# own (whole-second) time is the better estimate of when it happened.
STALE_AFTER_S = 2.0


def api_client(kubeconfig: Path) -> client.ApiClient:
    return config.new_client_from_config(config_file=str(kubeconfig))


class WorkloadWatch:
    """Streams Workload changes in all namespaces to the sink of each namespace."""

    def __init__(self, kubeconfig: Path):
        self._api = client.CustomObjectsApi(api_client(kubeconfig))
        self._sinks: dict[str, Sink] = {}
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="workload-watch", daemon=True)

    def start(self) -> WorkloadWatch:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopped.set()

    def subscribe(self, namespace: str, sink: Sink) -> None:
        with self._lock:
            self._sinks[namespace] = sink

    def unsubscribe(self, namespace: str) -> None:
        with self._lock:
            self._sinks.pop(namespace, None)

    def _deliver(self, obj: dict[str, Any]) -> None:
        with self._lock:
            sink = self._sinks.get(obj["metadata"].get("namespace", ""))
        if sink is not None:
            sink(obj, time.time())

    def _run(self) -> None:
        while not self._stopped.is_set():
            try:
                listed = self._api.list_cluster_custom_object(GROUP, VERSION, PLURAL)
                for item in listed["items"]:
                    self._deliver(item)
                self._stream(listed["metadata"]["resourceVersion"])
            except Exception:  # a dropped connection or an expired version: list again
                if not self._stopped.is_set():
                    log.warning("workload watch restarting", exc_info=True)
                    time.sleep(0.5)

    def _stream(self, version: str) -> None:
        while not self._stopped.is_set():
            stream = watch.Watch().stream(
                self._api.list_cluster_custom_object,
                GROUP,
                VERSION,
                PLURAL,
                resource_version=version,
                timeout_seconds=60,
            )
            for event in stream:
                if event["type"] == "ERROR":
                    raise ApiException(status=event["raw_object"].get("code", 500))
                obj = event["object"]
                version = obj["metadata"]["resourceVersion"]
                if event["type"] != "DELETED":
                    self._deliver(obj)


class ScenarioTracker:
    """Builds one scenario's ``Outcome`` from the Workloads of its namespace."""

    def __init__(self, scenario: Scenario, start: float):
        self.scenario, self.start = scenario, start
        self.builder = OutcomeBuilder(
            [scenario.short(j["metadata"]["name"]) for j in scenario.jobs]
        )
        self._seen: set[tuple[str, str, str]] = set()
        self._lock = threading.Lock()

    def __call__(self, obj: dict[str, Any], received: float) -> None:
        owners = obj["metadata"].get("ownerReferences") or [{}]
        job = self.scenario.short(owners[0].get("name", ""))
        if job not in self.builder.jobs:
            return
        with self._lock:
            self.builder.uid_to_job[obj["metadata"]["uid"]] = job
            conditions = {c["type"]: c for c in (obj.get("status") or {}).get("conditions") or ()}
            for kind in ("QuotaReserved", "Evicted", "Finished"):
                condition = conditions.get(kind)
                if condition and condition["status"] == "True":
                    self._transition(obj, job, kind, conditions, received)

    def _transition(
        self,
        obj: dict[str, Any],
        job: str,
        kind: str,
        conditions: dict[str, dict[str, Any]],
        received: float,
    ) -> None:
        condition = conditions[kind]
        key = (obj["metadata"]["uid"], kind, condition["lastTransitionTime"])
        if key in self._seen:
            return
        self._seen.add(key)
        at = self._when(condition, received)
        if kind == "QuotaReserved":
            self.builder.admit(job, at, self._flavors(obj))
        elif kind == "Finished":
            self.builder.finish(job, at)
        else:
            preempted = conditions.get("Preempted") or {}
            source = preempted if preempted.get("status") == "True" else condition
            uid = preemptor_uid(source.get("message", ""))
            self.builder.evict(job, at, source.get("reason", condition["reason"]), uid)

    def _when(self, condition: dict[str, Any], received: float) -> float:
        stamped = parse_timestamp(condition["lastTransitionTime"]) / 1000
        if received - stamped > STALE_AFTER_S:
            received = stamped + 0.5
        return round(received - self.start, 2)

    def _flavors(self, obj: dict[str, Any]) -> tuple[str, ...]:
        admission = (obj.get("status") or {}).get("admission") or {}
        names = {
            self.scenario.short(flavor)
            for assignment in admission.get("podSetAssignments") or ()
            for flavor in (assignment.get("flavors") or {}).values()
        }
        return tuple(sorted(names))

    def done(self) -> bool:
        with self._lock:
            return all(j.finished_s is not None for j in self.builder.jobs.values())

    def outcome(self, *, complete: bool) -> Outcome:
        with self._lock:
            ended = round(time.time() - self.start, 2)
            return self.builder.build(complete=complete, ended_s=ended)
