"""Writing DCGM usage summaries and the admins' GPU price table."""

from __future__ import annotations

from decimal import Decimal

from django.db import transaction

from apps.queues.models import ResourceFlavor
from apps.reports.compute.records import UsageFact
from apps.reports.models import GpuPrice, WorkloadRecord, WorkloadUsage
from core.audit import AuditAction, record_audit


@transaction.atomic
def store_usage(week: str, usage: dict[str, UsageFact], *, source: str = "dcgm") -> int:
    """Upsert one usage row per workload for ``week``; safe to repeat."""
    ids = dict(WorkloadRecord.objects.filter(uid__in=list(usage)).values_list("uid", "pk"))
    rows = [
        WorkloadUsage(
            workload_id=ids[uid], week=week, gpu_util=f.util, memory_used_mib=f.memory_mib,
            power_watts=f.power_watts, energy_kwh=f.energy_kwh, source=source,
        )
        for uid, f in usage.items()
        if uid in ids
    ]  # fmt: skip
    WorkloadUsage.objects.bulk_create(
        rows,
        update_conflicts=True,
        unique_fields=["workload", "week"],
        update_fields=["gpu_util", "memory_used_mib", "power_watts", "energy_kwh", "source"],
    )
    return len(rows)


@transaction.atomic
def set_gpu_price(flavor: ResourceFlavor, usd_per_gpu_hour: Decimal, *, actor) -> GpuPrice:
    """Set the fallback $/GPU-hour of a flavor (used when OpenCost has no price)."""
    if usd_per_gpu_hour < 0:
        raise ValueError("a price cannot be negative")
    price = GpuPrice.objects.select_for_update().filter(flavor=flavor).first()
    before = None if price is None else {"usd_per_gpu_hour": str(price.usd_per_gpu_hour)}
    price = price or GpuPrice(flavor=flavor)
    price.usd_per_gpu_hour, price.updated_by = usd_per_gpu_hour, actor
    price.save()
    record_audit(
        actor=actor,
        action=AuditAction.UPDATE if before else AuditAction.CREATE,
        obj=price,
        before=before,
        after={"usd_per_gpu_hour": str(usd_per_gpu_hour)},
    )
    return price
