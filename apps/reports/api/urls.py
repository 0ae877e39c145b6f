from django.urls import path

from apps.reports.api import views
from core.api_router import ApiRouter

router = ApiRouter()
router.register("reports", views.WeeklyReportViewSet, basename="report")

urlpatterns = [*router.urls, path("usage/", views.UsageView.as_view(), name="usage")]
