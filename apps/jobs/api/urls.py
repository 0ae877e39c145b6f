from rest_framework.routers import DefaultRouter

from apps.jobs.api import views

router = DefaultRouter()
router.register("notebooks", views.NotebookViewSet, basename="notebook")
router.register("jobs", views.JobViewSet, basename="job")

urlpatterns = router.urls
