from django.conf import settings
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from apps.accounts.forms import GuardedAdminLoginForm, GuardedLoginForm
from portal import health
from portal.observability import views as observability

# The admin site signs people in with its own form; it gets the same lockout.
admin.site.login_form = GuardedAdminLoginForm

# JSON errors of the API's shape under /api/, Django's HTML pages elsewhere.
handler400 = "portal.http_errors.bad_request"
handler403 = "portal.http_errors.permission_denied"
handler404 = "portal.http_errors.page_not_found"
handler500 = "portal.http_errors.server_error"

urlpatterns = [
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("metrics", observability.metrics, name="metrics"),
    path(
        "login/", auth_views.LoginView.as_view(authentication_form=GuardedLoginForm), name="login"
    ),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    # Notebooks and jobs first: clients poll notebook status, and every pattern tried
    # before a match is a regular expression run on every poll. The first router's root
    # view answers /api/v1/, so the jobs router has none.
    path("api/v1/", include("apps.jobs.api.urls")),
    path("api/v1/", include("apps.queues.api.urls")),
    path("api/v1/", include("apps.reports.api.urls")),
    path("api/v1/", include("apps.whatif.api.urls")),
    path("api/v1/", include("apps.live.api_urls")),
    path("api/v1/", include("apps.users.api.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("", include("apps.accounts.urls")),
    path("", include("apps.users.urls")),
    path("", include("apps.jobs.urls")),
    path("reports/", include("apps.reports.urls")),
    path("notifications/", include("apps.notifications.urls")),
    path("", include("apps.whatif.urls")),
    path("", include("apps.live.urls")),
    path("", include("apps.queues.urls")),
]
if settings.QM_OIDC_ENABLED:
    urlpatterns.insert(0, path("oidc/", include("mozilla_django_oidc.urls")))
