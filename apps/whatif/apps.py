from django.apps import AppConfig


class WhatIfConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "apps.whatif"
    label = "whatif"
    verbose_name = "What-if replays"
