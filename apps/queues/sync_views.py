"""The cluster sync page: every managed object's state, recent runs, and the import button."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from apps.queues.models import SyncObject, SyncRun
from apps.queues.reconcile.brownfield import import_from_cluster
from core import permissions
from core.kube import KubeError


@login_required
def cluster_sync(request: HttpRequest) -> HttpResponse:
    if not permissions.can_manage_catalog(request.user):
        raise PermissionDenied
    context = {
        "objects": SyncObject.objects.select_related("queue"),
        "runs": SyncRun.objects.all()[:20],
    }
    return render(request, "queues/cluster_sync.html", context)


@login_required
@require_POST
def cluster_import(request: HttpRequest) -> HttpResponse:
    if not permissions.can_manage_catalog(request.user):
        raise PermissionDenied
    take = request.POST.get("take_ownership") == "1"
    try:
        plan, problems = import_from_cluster(actor=request.user, take_ownership_of_objects=take)
    except KubeError as exc:
        messages.error(request, exc.describe())
        return redirect("queues:cluster-sync")
    imported = plan.as_dict()
    messages.success(request, f"Imported queues: {', '.join(imported['queues']) or 'none'}.")
    for note in imported["not_represented"] + problems:
        messages.warning(request, note)
    return redirect("queues:cluster-sync")
