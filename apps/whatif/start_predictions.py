"""Start-time predictions for pending jobs and notebooks, and how good they have been.

``predict_start`` reads the cluster (queue objects and Workloads) through
``core.kube``, gives every workload the median run time of its queue and size
from recorded history, runs the admission engine forward and stores the answer
so ``score_eta_predictions`` can compare it with the real admission later.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from apps.queues.reconcile.observe import observe
from apps.whatif import recorded_trace
from apps.whatif.models import EtaPrediction
from apps.whatif.replay import start_estimates
from core import permissions
from core.dates import iso_z
from core.errors import NotAllowed
from core.kube import KubeClient
from core.kueue_config import cluster_configuration
from core.stats import median
from informer import objects as o
from informer.kinds import workload_ref
from kueuemodel import with_run_time

HORIZON = timedelta(days=14)


@dataclass(frozen=True)
class Eta:
    namespace: str
    name: str
    state: str  # "pending", "admitted", "finished" or "unknown"
    predicted_start: datetime | None
    median_abs_error_s: float | None
    scored_predictions: int

    def as_dict(self) -> dict:
        return {
            "namespace": self.namespace,
            "workload": self.name,
            "state": self.state,
            "predicted_start": iso_z(self.predicted_start),
            "accuracy": {
                "median_abs_error_s": self.median_abs_error_s,
                "scored_predictions": self.scored_predictions,
            },
        }


def predict_start(namespace: str, name: str, *, actor, client: KubeClient | None = None) -> Eta:
    """Predicted start of one Workload (by Workload name, or its owner Job/StatefulSet name)."""
    if not permissions.can_view_eta(actor, namespace):
        raise NotAllowed("you may not see workloads of this namespace")
    with client or KubeClient() as kube:
        objects, workloads = _cluster_state(kube)
    target = _find(workloads, namespace, name)
    if target is None:
        return _answer(namespace, name, "unknown", None)
    if o.is_finished(target) or o.is_reserved(target):
        state = "finished" if o.is_finished(target) else "admitted"
        return _answer(namespace, target["metadata"]["name"], state, None)
    start = _predict(objects, workloads, target)
    record_prediction(target, start)
    return _answer(namespace, target["metadata"]["name"], "pending", start)


def _cluster_state(kube: KubeClient) -> tuple[list[dict], list[dict]]:
    version = settings.KUEUE_API_VERSION
    objects = [*observe(kube, version).values(), *cluster_configuration()]
    workloads = [w for w in kube.list(workload_ref()) if not o.is_finished(w)]
    return objects, workloads


def _find(workloads: list[dict], namespace: str, name: str) -> dict | None:
    for obj in workloads:
        ns, own = o.namespace_name(obj)
        if ns == namespace and name in (own, o.owner(obj)[1]):
            return obj
    return None


def _predict(objects: list[dict], workloads: list[dict], target: dict) -> datetime | None:
    now = timezone.now()
    now_ms = round(now.timestamp() * 1000)
    runs = start_estimates.expected_runs(recorded_trace.load_trace(now - timedelta(days=28), now))
    prepared = [with_run_time(w, _expected(runs, w), now_ms) for w in workloads]
    starts = start_estimates.predict_starts(
        objects, prepared, now_ms=now_ms, horizon_ms=int(HORIZON.total_seconds() * 1000)
    )
    meta = target["metadata"]
    start = starts.get(f"{meta['namespace']}/{meta['name']}")
    return None if start is None else datetime.fromtimestamp(start / 1000, tz=UTC)


def _expected(runs: dict, workload: dict) -> int:
    gpus = sum(o.gpus(workload).values())
    return start_estimates.expected_run(runs, o.queue_name(workload), gpus)


def _answer(namespace: str, name: str, state: str, start: datetime | None) -> Eta:
    accuracy = eta_accuracy()
    return Eta(namespace, name, state, start, accuracy["median_abs_error_s"], accuracy["scored"])


@transaction.atomic
def record_prediction(workload: dict, start: datetime | None) -> EtaPrediction:
    meta = workload["metadata"]
    return EtaPrediction.objects.create(
        uid=meta.get("uid") or f"{meta['namespace']}/{meta['name']}",
        namespace=meta["namespace"],
        name=meta["name"],
        predicted_at=timezone.now(),
        predicted_start=start,
    )


@transaction.atomic
def score_eta_predictions() -> int:
    """Fill in the real start of predictions whose workload has since been admitted."""
    pending = list(EtaPrediction.objects.unscored().select_for_update().order_by("pk")[:5000])
    admitted = recorded_trace.first_admissions({p.uid for p in pending})
    scored = 0
    for prediction in pending:
        actual = admitted.get(prediction.uid)
        if actual is None:
            continue
        prediction.actual_start = actual
        prediction.error_seconds = (prediction.predicted_start - actual).total_seconds()
        prediction.save(update_fields=["actual_start", "error_seconds"])
        scored += 1
    return scored


def eta_accuracy() -> dict:
    """Median absolute error (seconds) of scored predictions."""
    errors = [
        abs(e) for e in EtaPrediction.objects.scored().values_list("error_seconds", flat=True)
    ]
    return {"scored": len(errors), "median_abs_error_s": median(errors)}
