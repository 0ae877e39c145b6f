from django.apps import AppConfig
from django.db.models.signals import post_delete, post_save


class AccountsConfig(AppConfig):
    name = "apps.accounts"
    label = "accounts"

    def ready(self) -> None:
        from apps.accounts import (
            schema,  # noqa: F401  registers the OpenAPI extension
            token_cache,
        )
        from apps.accounts.models import ApiToken, User

        # Changes made in this process empty its token cache at once; other processes
        # hear of them through the database triggers (see token_cache).
        for model in (User, ApiToken):
            post_save.connect(token_cache.invalidate, sender=model, dispatch_uid=f"tc-{model}")
            post_delete.connect(token_cache.invalidate, sender=model, dispatch_uid=f"td-{model}")
