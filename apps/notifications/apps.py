from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    name = "apps.notifications"
    label = "notifications"

    def ready(self) -> None:
        # Connects the receiver that queues each new notification's delivery.
        from apps.notifications import tasks  # noqa: F401
