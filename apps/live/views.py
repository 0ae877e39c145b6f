"""Pages of the live views: render what ``read`` answers; the script keeps them fresh."""

from __future__ import annotations

import math

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from apps.live import read


@login_required
def live_queues(request: HttpRequest) -> HttpResponse:
    # Polling faster than the shared cache expires would only fetch the same snapshot.
    every = max(2, math.ceil(settings.QM_LIVE_CACHE_SECONDS))
    context = {"live": read.live_queues(request.user), "refresh_seconds": every}
    return render(request, "live/queues.html", context)


@login_required
def workload(request: HttpRequest, namespace: str, name: str) -> HttpResponse:
    answer = read.workload_detail(request.user, namespace, name)
    context = {"live": answer, "w": answer["workload"], "namespace": namespace, "name": name}
    return render(request, "live/workload.html", context)
