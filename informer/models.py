"""The informer's own state: its lease and one resume cursor per stream."""

from django.db import models


class WatchCursor(models.Model):
    """Where a stream resumes (``name`` is the stream's), or the informer's lease.

    The lease (``lease_owner`` until ``lease_until``, on the row named ``informer``)
    keeps two overlapping runs from watching at once; it is taken with a conditional
    UPDATE. The table keeps the name it had when the reports app lent it to the
    informer (``reports_watchcursor``): moving the model renamed nothing in the database.
    """

    name = models.CharField(max_length=63, unique=True)
    resource_version = models.CharField(max_length=64, blank=True)
    lease_owner = models.CharField(max_length=64, blank=True)
    lease_until = models.DateTimeField(null=True, blank=True)
    last_relist_at = models.DateTimeField(null=True, blank=True)
    events_seen = models.BigIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "reports_watchcursor"

    def __str__(self) -> str:
        return f"{self.name}@{self.resource_version or '-'}"
