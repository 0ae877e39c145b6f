from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin

from apps.accounts.models import ApiToken, User
from apps.accounts.services import revoke_api_token
from core.errors import DomainError


@admin.register(User)
class PortalUserAdmin(UserAdmin):
    fieldsets = (*UserAdmin.fieldsets, ("Quartermaster", {"fields": ("is_platform_admin",)}))
    list_display = ("username", "email", "is_platform_admin", "is_active")


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """Read and revoke only: a token saved here would have a secret nobody ever sees.

    Tokens are created on the portal's *API tokens* page or with ``manage.py create_token``
    / ``create_launcher_token``, which show the secret once.
    """

    list_display = (
        "name",
        "user",
        "prefix",
        "created_at",
        "expires_at",
        "last_used_at",
        "revoked_at",
    )
    list_filter = ("revoked_at",)
    readonly_fields = list_display
    exclude = ("key_hash",)
    actions = ["revoke"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False  # revoke instead: it is audited and every process hears of it

    @admin.action(description="Revoke selected tokens")
    def revoke(self, request, queryset):
        revoked = 0
        for token in queryset.select_related("user"):
            try:
                revoked += revoke_api_token(token, actor=request.user, reason="Django admin")
            except DomainError as exc:
                self.message_user(request, f"{token}: {exc.detail}", messages.ERROR)
        self.message_user(request, f"{revoked} token(s) revoked.", messages.SUCCESS)
