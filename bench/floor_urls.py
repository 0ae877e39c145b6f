"""The portal's URLs plus the floor: a DRF endpoint that only authenticates the token and
runs the default permission and throttles, as every API view does, then answers ``{}``."""

from django.urls import path
from rest_framework.response import Response
from rest_framework.views import APIView

from portal.urls import urlpatterns as portal_urlpatterns


class Floor(APIView):
    def get(self, request):
        return Response({})


urlpatterns = [path("bench/floor/", Floor.as_view()), *portal_urlpatterns]
