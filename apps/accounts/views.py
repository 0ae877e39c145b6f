"""The API tokens page: create (secret shown once), list, revoke. Each view calls one service."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from apps.accounts import services
from apps.accounts.forms import TokenForm
from apps.accounts.models import ApiToken
from core.errors import DomainError
from core.pages import add_to_form


@never_cache  # the response that carries a new secret must not be stored anywhere
@login_required
def tokens(request: HttpRequest) -> HttpResponse:
    form = TokenForm(request.POST or None)
    created = None
    if request.method == "POST" and form.is_valid():
        try:
            created = services.issue_api_token(
                request.user,
                form.cleaned_data["name"],
                actor=request.user,
                days=form.cleaned_data["days"],
            )
        except DomainError as exc:
            add_to_form(form, exc)
        else:
            form = TokenForm()
    context = {
        "form": form,
        "tokens": ApiToken.objects.owned_by(request.user),
        "created": created[0] if created else None,
        "secret": created[1] if created else "",
    }
    return render(request, "accounts/tokens.html", context, status=201 if created else 200)


@login_required
@require_POST
def token_revoke(request: HttpRequest, pk: int) -> HttpResponse:
    token = get_object_or_404(ApiToken.objects.owned_by(request.user), pk=pk)
    if services.revoke_api_token(token, actor=request.user):
        messages.success(request, f"Token {token} revoked: the API refuses it from now on.")
    return redirect("accounts:tokens")
