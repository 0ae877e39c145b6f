from django.urls import path, reverse_lazy

from apps.accounts import views
from apps.accounts.password_links import SetPasswordView

app_name = "accounts"

urlpatterns = [
    path("tokens/", views.tokens, name="tokens"),
    path("tokens/<int:pk>/revoke/", views.token_revoke, name="token-revoke"),
    path(
        "set-password/<uidb64>/<token>/",
        SetPasswordView.as_view(
            template_name="accounts/set_password.html", success_url=reverse_lazy("login")
        ),
        name="set-password",
    ),
]
