from django.contrib import admin

from apps.reports import services
from apps.reports.models import GpuPrice, HistoryGap, WeeklyReport, WorkloadRecord


@admin.register(GpuPrice)
class GpuPriceAdmin(admin.ModelAdmin):
    """Admins edit the fallback $/GPU-hour; saving goes through the service (audited)."""

    list_display = ["flavor", "usd_per_gpu_hour", "updated_at", "updated_by"]
    fields = ["flavor", "usd_per_gpu_hour"]

    def save_model(self, request, obj, form, change):
        saved = services.set_gpu_price(obj.flavor, obj.usd_per_gpu_hour, actor=request.user)
        obj.pk = saved.pk


@admin.register(WorkloadRecord)
class WorkloadRecordAdmin(admin.ModelAdmin):
    list_display = [
        "namespace",
        "name",
        "team_slug",
        "cluster_queue",
        "gpus",
        "outcome",
        "created_at",
    ]
    list_filter = ["outcome", "size_class"]
    search_fields = ["uid", "name", "namespace"]

    def has_change_permission(self, request, obj=None):
        return False

    def has_add_permission(self, request):
        return False


@admin.register(WeeklyReport)
class WeeklyReportAdmin(admin.ModelAdmin):
    list_display = ["week", "built_at"]
    fields = ["week", "built_at"]
    readonly_fields = ["week", "built_at"]


@admin.register(HistoryGap)
class HistoryGapAdmin(admin.ModelAdmin):
    """Recorder downtime, written only by the recorder (read-only here)."""

    list_display = ["start", "end", "cause", "events_from", "rebuilt", "recorded_at"]
    list_filter = ["cause"]

    def has_change_permission(self, request, obj=None):
        return False

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
