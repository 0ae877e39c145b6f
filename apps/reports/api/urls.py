from apps.reports.api import views
from core.api_router import ApiRouter

router = ApiRouter()
router.register("reports", views.WeeklyReportViewSet, basename="report")
router.register("usage", views.UsageViewSet, basename="usage")

urlpatterns = router.urls
