from django.apps import AppConfig


class QueuesConfig(AppConfig):
    name = "apps.queues"
    label = "queues"
    verbose_name = "Quota policy"
