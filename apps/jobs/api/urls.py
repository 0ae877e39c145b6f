from apps.jobs.api import inference_endpoints, views
from core.api_router import ApiRouter

# No root view: /api/v1/ is the queues router's (portal/urls.py puts this one first).
router = ApiRouter()
router.include_root_view = False
router.register("notebooks", views.NotebookViewSet, basename="notebook")
router.register("jobs", views.JobViewSet, basename="job")
router.register("quotes", views.QuoteViewSet, basename="quote")
router.register("sweeps", views.SweepViewSet, basename="sweep")
router.register("sweep-limits", views.SweepLimitViewSet, basename="sweep-limit")
router.register(
    "inference-services", inference_endpoints.InferenceServiceViewSet, basename="inference-service"
)

urlpatterns = router.urls
