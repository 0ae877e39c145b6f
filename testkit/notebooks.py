"""What notebook tests ask for and read back: the pool's image, a request body, the mail."""

IMAGE = "registry.example.com/notebooks/pytorch:2.4"


def notebook_body(**overrides) -> dict:
    return {"image": IMAGE, "flavor": "h100", "gpus": 1, **overrides}


def delivered() -> list:
    """Deliver every stored notification the way the delivery task does; the sent mail."""
    from django.core import mail

    from apps.notifications import services as notifications
    from apps.notifications.models import Notification

    for pk in Notification.objects.values_list("pk", flat=True):
        notifications.deliver(pk)
    return mail.outbox
