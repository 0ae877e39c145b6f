from django.conf import settings
from django.http import HttpRequest

from portal import preparing as preparing_record


def preparing(request: HttpRequest) -> dict:
    """What is still being prepared (the banner on every page), or None."""
    return {"preparing": preparing_record.read(settings.DATA_DIR)}
