"""Turn domain errors into API responses in one place.

Validation errors answer 400 with ``errors: {field: [messages]}``; an edit
against a stale version answers 409 with what changed since; a cluster that
cannot be reached (or refuses us) answers 503 naming what failed, never a 500.
"""

from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from apps.jobs.errors import JobsError
from apps.queues.errors import ConflictError, NotAllowed, PolicyError
from portal.kube import KubeError


def exception_handler(exc: Exception, context: dict) -> Response | None:
    if isinstance(exc, KubeError):
        body = {"code": "cluster_unavailable", "detail": exc.describe()}
        return Response(body, status=status.HTTP_503_SERVICE_UNAVAILABLE)
    if isinstance(exc, JobsError):
        return Response(exc.as_dict(), status=exc.status)
    if isinstance(exc, PolicyError):
        return Response(
            {"code": "invalid", "detail": str(exc), "errors": exc.errors},
            status=status.HTTP_400_BAD_REQUEST,
        )
    if isinstance(exc, ConflictError):
        return Response(
            {
                "code": "conflict",
                "detail": str(exc),
                "current_version": exc.current_version,
                "changes_since_your_version": exc.changes,
            },
            status=status.HTTP_409_CONFLICT,
        )
    if isinstance(exc, NotAllowed):
        return Response({"code": "forbidden", "detail": str(exc)}, status=status.HTTP_403_FORBIDDEN)
    return drf_exception_handler(exc, context)
