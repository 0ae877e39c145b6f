from django.apps import AppConfig


class InformerConfig(AppConfig):
    """Listed in INSTALLED_APPS for its Celery task and its model (the lease and cursors)."""

    name = "informer"
    label = "informer"
