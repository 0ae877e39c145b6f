from django.urls import path

from apps.whatif.api import views
from core.api_router import ApiRouter

router = ApiRouter()
router.register("whatif", views.WhatIfRunViewSet, basename="whatif")
router.register("suggestions", views.PolicySuggestionViewSet, basename="suggestion")

urlpatterns = [path("whatif/eta/", views.eta, name="whatif-eta"), *router.urls]
