from apps.users.api import views
from core.api_router import ApiRouter

router = ApiRouter()
router.register("users", views.UserViewSet, basename="user")

urlpatterns = router.urls
