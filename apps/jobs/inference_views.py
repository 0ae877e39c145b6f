"""Pages of inference services: list, request, detail, stop. Thin, like the job pages."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from apps.jobs.forms import InferenceForm
from apps.jobs.models import InferenceService
from apps.jobs.services import Principal
from apps.jobs.services.inference import (
    InferenceRequest,
    request_inference_service,
    stop_inference_service,
)
from apps.jobs.views import owned_page
from core.errors import DomainError
from core.pages import add_to_form, show_error


@login_required
def inference_list(request: HttpRequest) -> HttpResponse:
    visible = InferenceService.objects.visible_to(request.user).with_related()
    page, scope = owned_page(request, visible)
    return render(request, "jobs/inference_list.html", {"page": page, "scope": scope})


@login_required
def inference_request(request: HttpRequest) -> HttpResponse:
    form = InferenceForm(request.user, request.POST or None)
    if request.method == "POST" and form.is_valid():
        spec = InferenceRequest(**form.request_fields())
        try:
            service = request_inference_service(
                request.user, spec, actor=Principal(request.user)
            ).record
        except DomainError as exc:
            add_to_form(form, exc)
        else:
            messages.success(request, "Inference service requested.")
            return redirect("jobs:inference", service.pk)
    return render(request, "jobs/inference_form.html", {"form": form})


def _service(request: HttpRequest, pk: int) -> InferenceService:
    visible = InferenceService.objects.visible_to(request.user).with_related()
    return get_object_or_404(visible, pk=pk)


@login_required
def inference_detail(request: HttpRequest, pk: int) -> HttpResponse:
    return render(request, "jobs/inference_detail.html", {"service": _service(request, pk)})


@login_required
@require_POST
def inference_stop(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        stop_inference_service(_service(request, pk), actor=Principal(request.user))
    except DomainError as exc:
        show_error(request, exc)
    return redirect("jobs:inference", pk)
