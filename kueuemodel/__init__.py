"""Kueue's admission model: pure Python, no I/O, no Django.

The simulated cluster (``simcluster``) runs it live; the what-if replay, the start-time
estimates (``apps.whatif``), the job form's "could this ever fit" check and a job's quote
(``apps.jobs``) run it over recorded history, rendered manifests or the cluster's state. Its rules are measured against the
real Kueue (``bench/differential``, docs/differential.md).

This module is the whole public API: code outside ``kueuemodel`` imports names from here
(``from kueuemodel import Simulation``) and never a submodule (``tests/ops/test_layers.py``
fails on ``from kueuemodel.clock import …`` or ``from kueuemodel import model``). The
submodules may be reorganised freely behind it.

Running a simulation
  ``Simulation(objects, *, start_ms=None, record_events=True, pod_stop_ms=…)`` builds
  from plain manifests (ClusterQueues, Cohorts, LocalQueues, ResourceFlavors, Nodes,
  WorkloadPriorityClasses, Kueue's Configuration, Workloads and Jobs);
  ``add_workload(obj, at_ms=None)``, ``add_arrivals(trace)``, ``delete_workload(ns, name)``,
  ``run(until_ms=None)``, ``workloads()``. ``latency=Latency(…)`` opts into Kueue's own
  delays (scheduling cycles, rate-limited API writes, finish detection); the default has
  none, so decisions take effect at once. ``equivalence_hashing=False`` parks one
  inadmissible head per cycle as Kueue v0.17 does (it changes only a paced run's timing). ``sim.cluster.events`` holds Kubernetes Event
  dicts, ``sim.cluster.now_ms`` the virtual clock, ``sim.cluster.status_writer`` the
  ``StatusWriter`` that records decisions. ``NEXT_INSTANT_MS`` is the smallest delay.
  A Configuration with an ``admissionFairSharing`` block turns on Kueue's
  AdmissionFairSharing: ClusterQueues with ``admissionScope`` order their pending
  workloads by their LocalQueue's decayed usage; ``keep_queue_usage(previous)`` carries
  that usage into a run rebuilt from changed objects, as Kueue keeps it.
  ``configuration(fair_sharing=…, admission_fair_sharing=…)`` is that Configuration
  object (None when neither is on); ``check_admission_fair_sharing(block)`` refuses a
  malformed ``admissionFairSharing`` block with a ValueError naming the key.

Running the present forward
  ``with_run_time(obj, expected_ms, now_ms, bound_ms=None)`` gives a workload read from a
  cluster the run time it is expected to need (counted from its quota reservation);
  ``first_admissions(objects, workloads, start_ms=…, until_ms=…)`` runs the model forward
  and says when each workload is first admitted (the start estimates and quotes); each
  LocalQueue's AdmissionFairSharing usage starts at the figure its status reports;
  ``expected_run_ms`` is the run-time rule ``with_run_time`` applies (overdue work needs a
  tenth more, never past its bound), for estimates made without the model.
  ``model_copy(obj)`` is the copy both hand out: a simulation writes only a Workload's
  metadata and status, so only those are copied and the spec is shared (one object read
  from a cluster can feed several runs without deep copies).

Status and reports
  ``cluster_queue_status / local_queue_status / cohort_status / pending_workloads`` build
  the status blocks and the visibility summary; ``StatusWriter`` (subclass it to observe
  admissions, evictions and finishes) and ``set_condition`` write Workload conditions.

Model types (read-only for callers)
  ``Workload``, ``Admission``, ``ResourceFlavor``, ``Toleration`` and ``STOP_NONE``
  (a queue's ``stopPolicy: None``).

Quota arithmetic (for "what could this queue ever get")
  ``Cluster``, ``load_specs(cluster, objects)``, ``build_quota_tree(cluster)``,
  ``potential_available(node, (flavor, resource))``.

Values and conventions
  Quantities, the one bounded parser the portal and the simulated cluster share:
  ``quantity_value`` (a Decimal, as the API server reads it), ``parse_units`` (exact, for
  typed input), ``parse_milli`` (milli-units), ``format_milli``, ``QuantityError``
  (its message is the rule broken); ``parse_timestamp`` / ``format_timestamp`` / ``parse_duration`` /
  ``format_duration`` (RFC 3339 and Go durations to and from milliseconds);
  ``QUEUE_LABEL``, ``PRIORITY_LABEL``; ``REQUEUE_BATCH_MS`` (Kueue's requeue batch of
  parked workloads after a release); ``DURATION_ANNOTATION`` and ``ARRIVAL_ANNOTATION``,
  the model's own inputs for a workload's run time and arrival (set by the replay and the
  simulated cluster on the objects they hand the model; no real cluster has them).

Scenarios
  ``run_scenario(yaml_text, until=None)`` and ``scenario_main(argv)`` (the CLI of
  ``python -m simcluster run``).
"""

from .clock import format_duration, format_timestamp, parse_duration, parse_timestamp
from .configuration import check_admission_fair_sharing, configuration
from .forecast import expected_run_ms, first_admissions, model_copy, with_run_time
from .latency import Latency
from .model import STOP_NONE, Admission, ResourceFlavor, Toleration, Workload
from .parse import DURATION_ANNOTATION, PRIORITY_LABEL, QUEUE_LABEL
from .quantity import (
    QuantityError,
    format_milli,
    parse_milli,
    parse_units,
    quantity_value,
)
from .quota import potential_available
from .reports import cluster_queue_status, cohort_status, local_queue_status, pending_workloads
from .scenario import main as scenario_main
from .scenario import run_scenario
from .simulation import ARRIVAL_ANNOTATION, NEXT_INSTANT_MS, REQUEUE_BATCH_MS, Simulation
from .state import Cluster, build_quota_tree, load_specs
from .status import StatusWriter, set_condition

__all__ = [
    "ARRIVAL_ANNOTATION",
    "DURATION_ANNOTATION",
    "NEXT_INSTANT_MS",
    "PRIORITY_LABEL",
    "QUEUE_LABEL",
    "REQUEUE_BATCH_MS",
    "STOP_NONE",
    "Admission",
    "Cluster",
    "Latency",
    "QuantityError",
    "ResourceFlavor",
    "Simulation",
    "StatusWriter",
    "Toleration",
    "Workload",
    "build_quota_tree",
    "check_admission_fair_sharing",
    "cluster_queue_status",
    "cohort_status",
    "configuration",
    "expected_run_ms",
    "first_admissions",
    "format_duration",
    "format_milli",
    "format_timestamp",
    "load_specs",
    "local_queue_status",
    "model_copy",
    "parse_units",
    "parse_duration",
    "parse_milli",
    "parse_timestamp",
    "pending_workloads",
    "potential_available",
    "quantity_value",
    "run_scenario",
    "scenario_main",
    "set_condition",
    "with_run_time",
]
