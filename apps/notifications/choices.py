"""What people are told about, and how."""

from django.db import models


class NotificationKind(models.TextChoices):
    CHANGE_REQUEST_FILED = "change_request_filed", "A change request waits for a platform admin"
    CHANGE_REQUEST_DECIDED = "change_request_decided", "A change request of yours was decided"
    JOB_PREEMPTED = "job_preempted", "A job of yours was preempted"
    NOTEBOOK_EXPIRING = "notebook_expiring", "A notebook of yours is about to expire or be culled"
    NOTEBOOK_ENDED = (
        "notebook_ended",
        "A notebook of yours was culled, expired or stopped by an admin",
    )
    QUEUE_OUT_OF_SYNC = "queue_out_of_sync", "A queue you lead is out of sync with the cluster"


class WebhookFormat(models.TextChoices):
    JSON = "json", "Generic JSON"
    SLACK = "slack", 'Slack / Teams incoming webhook ({"text": …})'
