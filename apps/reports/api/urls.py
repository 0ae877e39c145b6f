from rest_framework.routers import DefaultRouter

from apps.reports.api import views

router = DefaultRouter()
router.register("reports", views.WeeklyReportViewSet, basename="report")

urlpatterns = router.urls
