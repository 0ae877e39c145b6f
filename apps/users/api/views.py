"""/api/v1/users/: everyone reads what ``users_visible_to`` lets them; admins write."""

from drf_spectacular.utils import extend_schema
from rest_framework import status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from apps.users import listing, services
from apps.users.api import serializers as s
from core import permissions
from core.errors import NotAllowed


class UserViewSet(viewsets.ReadOnlyModelViewSet):
    serializer_class = s.UserSerializer
    lookup_field = "username"
    lookup_value_regex = r"[^/]+"

    def get_queryset(self):
        params = self.request.query_params
        visible = listing.users_visible_to(self.request.user)
        return listing.with_columns(
            listing.search(visible, params.get("search", ""), params.get("status", ""))
        )

    def _admin_body(self, request, serializer) -> dict:
        # Authorize before reading the body: a non-admin gets 403 whatever they send.
        if not permissions.can_manage_users(request.user):
            raise NotAllowed("only platform admins manage users")
        body = serializer(data=request.data)
        body.is_valid(raise_exception=True)
        return dict(body.validated_data)

    def _answer(self, user) -> Response:
        return Response(s.UserSerializer(listing.one_with_columns(user)).data)

    @extend_schema(request=s.UserCreateSerializer, responses={201: s.UserCreatedSerializer})
    def create(self, request):
        data = self._admin_body(request, s.UserCreateSerializer)
        user, path = services.create_user(services.NewUser(**data), actor=request.user)
        context = {"set_password_url": request.build_absolute_uri(path)}
        body = s.UserCreatedSerializer(listing.one_with_columns(user), context=context).data
        return Response(body, status=status.HTTP_201_CREATED)

    @extend_schema(request=s.DisableSerializer, responses=s.UserSerializer)
    @action(detail=True, methods=["post"])
    def disable(self, request, username=None):
        """Disable the user (sign-in, tokens, sessions); optionally stop their notebooks."""
        user = self.get_object()
        data = self._admin_body(request, s.DisableSerializer)
        services.disable_user(user, actor=request.user, **data)
        return self._answer(user)

    @extend_schema(request=s.ReasonSerializer, responses=s.UserSerializer)
    @action(detail=True, methods=["post"])
    def enable(self, request, username=None):
        """Let a disabled user sign in again."""
        user = self.get_object()
        data = self._admin_body(request, s.ReasonSerializer)
        services.enable_user(user, actor=request.user, **data)
        return self._answer(user)

    @extend_schema(request=s.ReasonSerializer, responses=s.NotebooksStoppedSerializer)
    @action(detail=True, methods=["post"], url_path="stop-notebooks")
    def stop_notebooks(self, request, username=None):
        """Stop every notebook of the user; answers how many were stopped."""
        user = self.get_object()
        data = self._admin_body(request, s.ReasonSerializer)
        stopped = services.stop_user_notebooks(user, actor=request.user, **data)
        return Response({"notebooks_stopped": stopped})
