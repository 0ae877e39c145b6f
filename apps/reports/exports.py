"""Pure: a report as CSV rows (long format: section, row, field, value)."""

from __future__ import annotations

from apps.reports import period

TABLES = (
    ("period", lambda r: [period.of(r)]),
    ("waits", lambda r: r["waits"]),
    ("requeue_waits", lambda r: r["requeue_waits"]),
    ("starvation", lambda r: r["starvation"]),
    ("fairness_teams", lambda r: r["fairness"]["teams"]),
    ("fairness_queues", lambda r: r["fairness"]["queues"]),
    ("preemptions", lambda r: r["preemption"]["events"]),
    ("preemption_teams", lambda r: r["preemption"]["teams"]),
    ("preemption_pairs", lambda r: r["preemption"]["pairs"]),
    ("utilisation", lambda r: r["utilisation"]),
    ("cost_teams", lambda r: r["cost"]["teams"]),
    ("idle_reserved", lambda r: [{"team": t["team"], **row} for t in r["cost"]["teams"]
                                 for row in t.get("idle_by_flavor", ())]),
    ("prices", lambda r: r["cost"]["prices"]),
    ("fragmentation", lambda r: [{k: v for k, v in r["fragmentation"].items() if k != "flavors"}]),
    ("fragmentation_flavors", lambda r: r["fragmentation"].get("flavors", ())),
    ("gaps", lambda r: r["gaps"]),
)  # fmt: skip


def csv_rows(week: str, report: dict):
    yield ["week", "section", "row", "field", "value"]
    for section, rows_of in TABLES:
        for i, row in enumerate(rows_of(report)):
            for field, value in row.items():
                if isinstance(value, dict | list):
                    value = (
                        ";".join(f"{k}={v}" for k, v in value.items())
                        if isinstance(value, dict)
                        else ";".join(map(str, value))
                    )
                yield [week, section, i, field, "" if value is None else value]
