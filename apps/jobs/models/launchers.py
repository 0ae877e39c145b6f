"""Which API tokens are notebook launchers, and for which teams."""

from django.conf import settings
from django.db import models

from apps.accounts.models import ApiToken
from apps.queues.models import Team


class LauncherGrant(models.Model):
    """Makes ``token`` a launcher: it may request notebooks for members of ``teams``.

    A plain token acts only for its own user. A launcher names the user in the
    request body; the notebook records both the user and the launcher token, and
    the audit row says who acted for whom.
    """

    token = models.OneToOneField(ApiToken, on_delete=models.CASCADE, related_name="launcher")
    teams = models.ManyToManyField(Team, related_name="+")
    granted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"launcher {self.token}"
