"""Pages of the live views: render what ``read`` answers; the script keeps them fresh."""

from __future__ import annotations

import math

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone

from apps.live import read
from apps.live.recorded_lifeline import recorded_figure
from apps.queues.cohort_tree import teams_tree, whole_tree
from apps.queues.models import Team
from apps.queues.reconcile.desired import load_state
from core.permissions import is_admin


@login_required
def live_queues(request: HttpRequest) -> HttpResponse:
    # Polling faster than the shared cache expires would only fetch the same snapshot.
    every = max(2, math.ceil(settings.QM_LIVE_CACHE_SECONDS))
    context = {
        "live": read.live_queues(request.user),
        "refresh_seconds": every,
        "cohort_tree": _cohort_tree(request.user),
    }
    return render(request, "live/queues.html", context)


def _cohort_tree(user) -> dict:
    """The whole tree for admins; the trees holding the viewer's teams' queues otherwise."""
    if is_admin(user):
        return whole_tree(load_state())
    teams = set(Team.objects.filter(memberships__user=user).values_list("slug", flat=True))
    return teams_tree(load_state(), teams, "None of your teams has a queue with GPU quota.")


@login_required
def workload(request: HttpRequest, namespace: str, name: str) -> HttpResponse:
    answer = read.workload_detail(request.user, namespace, name)
    found = answer["workload"]
    context = {"live": answer, "w": found, "namespace": namespace, "name": name}
    if found:
        context["timeline"] = recorded_figure(found["uid"], timezone.now())
    return render(request, "live/workload.html", context)
