"""Every write of the reports domain. Views, API, admin, commands and tasks call these."""

from apps.reports.services.history_gaps import record_history_gap
from apps.reports.services.level_rollup import rebuild_level_rollup
from apps.reports.services.snapshots import build_weekly_report
from apps.reports.services.usage import set_gpu_price, store_usage
from apps.reports.services.workload_records import (
    mark_vanished,
    record_reported_checkpoints,
    record_workload_events,
)

__all__ = [
    "build_weekly_report",
    "mark_vanished",
    "rebuild_level_rollup",
    "record_history_gap",
    "record_reported_checkpoints",
    "record_workload_events",
    "set_gpu_price",
    "store_usage",
]
