"""Admin pages for the pool and allow-lists; every save goes through ``services.pool``."""

from django import forms
from django.contrib import admin

from apps.jobs import models
from apps.jobs.services.pool import (
    delete_setting,
    inference_tier_error,
    pool_capacity_error,
    save_setting,
)


class ServiceAdmin(admin.ModelAdmin):
    def save_model(self, request, obj, form, change):
        save_setting(obj, actor=request.user, created=not change)

    def delete_model(self, request, obj):
        delete_setting(obj, actor=request.user)

    def has_module_permission(self, request):
        return bool(getattr(request.user, "is_platform_admin", False))


class NoInferenceTierForm(forms.ModelForm):
    """The rule save_setting enforces on a pool's or a role's tier, shown on the field."""

    def clean(self):
        cleaned = super().clean()
        draft = self._meta.model(**{k: v for k, v in cleaned.items() if k.endswith("tier")})
        if problem := inference_tier_error(draft):
            self.add_error(*problem)
        return cleaned


class PoolFlavorForm(forms.ModelForm):
    def clean(self):
        cleaned = super().clean()
        pool_id, flavor, gpus = self.instance.pool_id, cleaned.get("flavor"), cleaned.get("gpus")
        if pool_id is None or flavor is None or gpus is None:
            return cleaned  # a new pool, or field errors already shown
        # The rule save_setting enforces, shown on the field (the instance still holds
        # the old values here: Django copies the form's into it after clean()).
        draft = models.PoolFlavor(
            pool_id=pool_id,
            flavor=flavor,
            gpus=gpus,
            gpu_resource=cleaned.get("gpu_resource") or self.instance.gpu_resource,
        )
        if problem := pool_capacity_error(draft):
            self.add_error("gpus", problem)
        return cleaned


class PoolFlavorInline(admin.TabularInline):
    model = models.PoolFlavor
    form = PoolFlavorForm
    extra = 0


@admin.register(models.InteractivePool)
class InteractivePoolAdmin(ServiceAdmin):
    form = NoInferenceTierForm
    list_display = ("name", "is_enabled", "lend_idle_capacity", "cohort", "priority_tier")
    inlines = [PoolFlavorInline]


for model, columns in (
    (models.NotebookImage, ("image", "is_enabled")),
    (models.NotebookProfile, ("name", "cpu", "memory", "is_default")),
    (models.JobTemplate, ("name", "image", "is_enabled")),
    (models.LauncherGrant, ("token", "created_at")),
):
    admin.site.register(
        model, type(f"{model.__name__}Admin", (ServiceAdmin,), {"list_display": columns})
    )


@admin.register(models.RoleTierLimit)
class RoleTierLimitAdmin(ServiceAdmin):
    form = NoInferenceTierForm
    list_display = ("role", "max_tier")


@admin.register(models.Notebook)
class NotebookAdmin(admin.ModelAdmin):
    list_display = ("name", "owner", "team", "state", "gpus", "flavor", "expires_at")
    list_filter = ("state",)

    def has_change_permission(self, request, obj=None):
        return False  # notebooks change through the API, the pages and the tasks


@admin.register(models.BatchJob)
class BatchJobAdmin(admin.ModelAdmin):
    list_display = ("name", "owner", "team", "state", "pods", "gpus_per_pod", "created_at")
    list_filter = ("state",)

    def has_change_permission(self, request, obj=None):
        return False
