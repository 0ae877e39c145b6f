"""The notification preferences page: one form per user, and their recent notifications."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from apps.notifications import services
from apps.notifications.forms import PreferenceForm
from core.errors import DomainError
from core.pages import add_to_form

RECENT = 20


@login_required
def preferences(request: HttpRequest) -> HttpResponse:
    current = services.preference_for(request.user)
    form = PreferenceForm(
        request.POST or None,
        initial={
            "email_enabled": current.email_enabled,
            "webhook_url": current.webhook_url,
            "webhook_format": current.webhook_format,
            "muted_kinds": current.muted_kinds,
        },
    )
    if request.method == "POST" and form.is_valid():
        try:
            services.save_preferences(request.user, actor=request.user, **form.cleaned_data)
        except DomainError as exc:
            add_to_form(form, exc)
        else:
            messages.success(request, "Notification preferences saved.")
            return redirect("notifications:preferences")
    recent = request.user.notifications.all()[:RECENT]
    return render(request, "notifications/preferences.html", {"form": form, "recent": recent})
