from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from apps.accounts.models import ApiToken, User


@admin.register(User)
class PortalUserAdmin(UserAdmin):
    fieldsets = (*UserAdmin.fieldsets, ("Quartermaster", {"fields": ("is_platform_admin",)}))
    list_display = ("username", "email", "is_platform_admin", "is_active")


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("name", "user", "prefix", "created_at", "last_used_at", "revoked_at")
    readonly_fields = ("prefix", "key_hash", "created_at", "last_used_at")
