"""Whether the embedded demo was loaded into this database."""

from django.db import models


class DemoSeed(models.Model):
    """Written once, in the transaction that loads the demo (or finds the database already
    in use). Every later start sees it and loads nothing, so whatever users changed since
    (quotas, members, tokens, passwords) stays as they left it."""

    key = models.CharField(max_length=20, unique=True, default="demo")
    seeded_at = models.DateTimeField(auto_now_add=True)
    loaded = models.BooleanField(
        default=True, help_text="False: the database had users already, so nothing was loaded."
    )

    def __str__(self) -> str:
        at = f"{self.seeded_at:%Y-%m-%d %H:%M} UTC"
        if self.loaded:
            return f"the demo was loaded at {at}"
        return f"the database had users already at {at}, so the demo was never loaded"
