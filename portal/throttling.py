"""API rate limits read from settings at request time (so they follow configuration)."""

from django.conf import settings
from rest_framework.throttling import AnonRateThrottle, UserRateThrottle


class UserRate(UserRateThrottle):
    def get_rate(self) -> str:
        return settings.API_RATE_USER


class AnonRate(AnonRateThrottle):
    def get_rate(self) -> str:
        return settings.API_RATE_ANON
