"""Workload manifests and Kueue-style status patches for recorder tests."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

# After the workloads' real creationTimestamp, so recorded steps sort in life order.
T0 = datetime.now(UTC).replace(microsecond=0) + timedelta(minutes=1)


def restart_clock(monkeypatch) -> None:
    """Status times must come after the workloads' real creation time, however long the
    suite ran before a test: a fixture restarts their clock for every test."""
    import sys

    start = datetime.now(UTC).replace(microsecond=0) + timedelta(minutes=1)
    monkeypatch.setattr(sys.modules[__name__], "T0", start)


def stamp(minutes: float) -> str:
    return (T0 + timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%SZ")


def workload(name: str, namespace: str = "team-vision", gpus: int = 2, count: int = 1) -> dict:
    container = {
        "name": "main",
        "image": "trainer",
        "resources": {"requests": {"nvidia.com/gpu": str(gpus)}},
    }
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Workload",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "ownerReferences": [
                {"apiVersion": "batch/v1", "kind": "Job", "name": name, "uid": f"job-{name}"}
            ],
        },
        "spec": {
            "queueName": "vision",
            "podSets": [{"name": "main", "count": count, "template": {"spec": {"containers": [container]}}}],
        },
    }  # fmt: skip


def condition(type_: str, status: str, reason: str, minutes: float, message: str = "") -> dict:
    return {
        "type": type_,
        "status": status,
        "reason": reason,
        "message": message or reason,
        "lastTransitionTime": stamp(minutes),
    }


def admitted(minutes: float, flavor: str = "h100", gpus: int = 2) -> dict:
    admission = {
        "clusterQueue": "vision",
        "podSetAssignments": [
            {"name": "main", "flavors": {"nvidia.com/gpu": flavor},
             "resourceUsage": {"nvidia.com/gpu": str(gpus)}, "count": 1}
        ],
    }  # fmt: skip
    return {
        "status": {
            "admission": admission,
            "conditions": [
                condition("QuotaReserved", "True", "QuotaReserved", minutes),
                condition("Admitted", "True", "Admitted", minutes),
            ],
        }
    }


def preemption_message(by_uid: str) -> str:
    return (
        f"Preempted to accommodate a workload (UID: {by_uid}, JobUID: j) due to reclamation "
        "within the cohort; preemptor path: /research/nlp; preemptee path: /research/vision"
    )


def preempted(minutes: float, by_uid: str, admitted_at: float) -> dict:
    message = preemption_message(by_uid)
    return {
        "status": {
            "admission": None,
            "conditions": [
                condition("QuotaReserved", "False", "PendingEvaluation", minutes),
                condition("Admitted", "False", "NoReservation", minutes),
                condition("Evicted", "True", "Preempted", minutes, message),
                condition("Preempted", "True", "InCohortReclamation", minutes, message),
                condition("Requeued", "True", "Preempted", minutes),
            ],
        }
    }


def finished(minutes: float, reason: str = "Succeeded") -> dict:
    return {"status": {"conditions": [condition("Finished", "True", reason, minutes)]}}


def readmitted(minutes: float, evicted_at: float, flavor: str = "h100", gpus: int = 2) -> dict:
    """Quota reserved again after an eviction: Kueue flips Evicted/Preempted to False."""
    patch = admitted(minutes, flavor, gpus)
    patch["status"]["conditions"] += [
        condition("Evicted", "False", "QuotaReserved", minutes, "Previously: Preempted"),
        condition("Preempted", "False", "QuotaReserved", minutes, "Previously: Preempted"),
        condition("Requeued", "True", "Preempted", evicted_at),
    ]
    return patch


def kueue_event(involved: dict, reason: str, minutes: float, message: str = "") -> dict:
    """A core/v1 Event on a Workload, as Kueue's recorder writes it."""
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": f"{involved['name']}.{reason.lower()}.{int(minutes * 60)}",
                     "namespace": involved["namespace"]},
        "involvedObject": {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
                           "namespace": involved["namespace"], "name": involved["name"],
                           "uid": involved["uid"]},
        "reason": reason,
        "message": message or reason,
        "type": "Normal",
        "source": {"component": "kueue-admission"},
        "firstTimestamp": stamp(minutes),
        "lastTimestamp": stamp(minutes),
        "count": 1,
    }  # fmt: skip
