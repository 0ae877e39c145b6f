from apps.queues.api import views
from core.api_router import ApiRouter

router = ApiRouter()
router.register("teams", views.TeamViewSet, basename="team")
router.register("flavors", views.FlavorViewSet, basename="flavor")
router.register("capacity", views.CapacityViewSet, basename="capacity")
router.register("cohorts", views.CohortViewSet, basename="cohort")
router.register("priority-tiers", views.PriorityTierViewSet, basename="priority-tier")
router.register("queues", views.QueueViewSet, basename="queue")
router.register("change-requests", views.ChangeRequestViewSet, basename="change-request")
router.register("audit", views.AuditEntryViewSet, basename="audit")

urlpatterns = router.urls
