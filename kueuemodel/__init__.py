"""Kueue's admission model: pure Python, no I/O, no Django.

The simulated cluster (``simcluster``) runs it live; the what-if replay and the
start-time estimates (``apps.whatif``) run it over recorded history. Its rules are
measured against the real Kueue (``bench/differential``, docs/differential.md).

Public API (everything else is internal):

- ``Simulation(objects, *, start_ms=None, record_events=True)`` — build from
  plain manifests; ``add_workload(obj, at_ms=None)``, ``add_arrivals(trace)``,
  ``delete_workload(ns, name)``, ``run(until_ms=None)``, ``workloads()``;
  ``sim.cluster.events`` holds Kubernetes Event dicts, ``sim.cluster.now_ms``
  the virtual clock.
- ``reports.cluster_queue_status / local_queue_status / cohort_status /
  pending_workloads`` — status blocks and the visibility summary.
- ``scenario.run_scenario(yaml_text, until=None)`` and ``scenario.main(argv)``.
- Quantities, the one bounded parser the portal and the simulated cluster share:
  ``quantity_value`` (Decimal as the API server reads it), ``parse_decimal``
  (exact, for typed input), ``parse_quantity`` (milli-units), ``format_quantity``,
  ``QuantityError`` (its message is the rule broken).
"""

from .quantity import (
    QuantityError,
    format_quantity,
    parse_decimal,
    parse_quantity,
    quantity_value,
)
from .reports import cluster_queue_status, cohort_status, local_queue_status, pending_workloads
from .scenario import run_scenario
from .simulation import Simulation

__all__ = [
    "QuantityError",
    "Simulation",
    "cluster_queue_status",
    "cohort_status",
    "format_quantity",
    "local_queue_status",
    "parse_decimal",
    "parse_quantity",
    "pending_workloads",
    "quantity_value",
    "run_scenario",
]
