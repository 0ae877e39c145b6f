from django.contrib import admin

from apps.notifications.models import Notification, NotificationPreference


@admin.register(NotificationPreference)
class NotificationPreferenceAdmin(admin.ModelAdmin):
    list_display = ("user", "email_enabled", "webhook_url", "webhook_format", "updated_at")


@admin.register(Notification)
class NotificationAdmin(admin.ModelAdmin):
    list_display = ("user", "kind", "subject", "created_at", "delivered_at", "attempts")
    list_filter = ("kind",)
    readonly_fields = [f.name for f in Notification._meta.fields]
