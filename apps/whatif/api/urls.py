from django.urls import path
from rest_framework.routers import DefaultRouter

from apps.whatif.api import views

router = DefaultRouter()
router.register("whatif", views.WhatIfRunViewSet, basename="whatif")

urlpatterns = [path("whatif/eta/", views.eta, name="whatif-eta"), *router.urls]
