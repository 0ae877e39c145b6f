"""The cluster sync page: every managed object's state, recent runs, and the import button."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from apps.queues import kueue, services
from apps.queues.choices import SyncState
from apps.queues.models import SyncObject, SyncRun, TeamNamespace
from apps.queues.reconcile.brownfield import import_from_cluster
from core import permissions
from core.errors import DomainError
from core.kube import KubeError
from core.namespaces import is_protected
from core.pages import show_error


@login_required
def cluster_sync(request: HttpRequest) -> HttpResponse:
    if not permissions.can_manage_catalog(request.user):
        raise PermissionDenied
    context = {
        "objects": SyncObject.objects.select_related("queue"),
        "runs": SyncRun.objects.all()[:20],
        "adoptable": adoptable_namespaces(),
    }
    return render(request, "queues/cluster_sync.html", context)


def adoptable_namespaces() -> set[str]:
    """Team namespaces the last run could not write, not adopted yet and not protected:
    the ones an admin may hand over to the portal."""
    blocked = SyncObject.objects.filter(kind=kueue.NAMESPACE, state=SyncState.ERROR)
    names = TeamNamespace.objects.filter(adopted_at=None, name__in=blocked.values("name"))
    return {name for name in names.values_list("name", flat=True) if not is_protected(name)}


@login_required
@require_POST
def cluster_adopt(request: HttpRequest) -> HttpResponse:
    if not permissions.can_manage_catalog(request.user):
        raise PermissionDenied
    name = request.POST.get("namespace", "")
    try:
        services.adopt_namespace(
            namespace=name, actor=request.user, reason=request.POST.get("reason", "")
        )
    except DomainError as exc:
        show_error(request, exc)
    else:
        messages.success(
            request, f"Adopted {name}; the reconciler labels it and writes its queues."
        )
    return redirect("queues:cluster-sync")


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
    except DomainError as exc:  # a value the portal cannot read: nothing was imported
        show_error(request, exc)
        return redirect("queues:cluster-sync")
    imported = plan.as_dict()
    messages.success(request, f"Imported queues: {', '.join(imported['queues']) or 'none'}.")
    for note in imported["not_represented"] + problems:
        messages.warning(request, note)
    return redirect("queues:cluster-sync")
