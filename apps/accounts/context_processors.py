from django.conf import settings
from django.http import HttpRequest

from core import permissions


def roles(request: HttpRequest) -> dict:
    """Expose the viewer's roles to templates (navigation only; views re-check)."""
    user = request.user
    return {
        "viewer": permissions.viewer_summary(user),
        "oidc_enabled": settings.QM_OIDC_ENABLED,
    }
