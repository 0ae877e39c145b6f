from django.apps import AppConfig


class WhatIfConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "apps.whatif"
    label = "whatif"
    verbose_name = "What-if replays"

    def ready(self) -> None:
        # Connects the receiver that starts each new run's replays.
        from apps.whatif import tasks  # noqa: F401
