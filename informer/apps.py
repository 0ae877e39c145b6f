from django.apps import AppConfig


class InformerConfig(AppConfig):
    """Listed in INSTALLED_APPS for its Celery task; it has no models."""

    name = "informer"
    label = "informer"
