"""API viewsets: parse, call one service, render. Visibility via ``visible_to``."""

from django.contrib.auth import get_user_model
from django.http import StreamingHttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from apps.queues import services
from apps.queues.api import serializers as s
from apps.queues.capacity import load_capacity, load_holders
from apps.queues.exports import audit_csv_rows
from apps.queues.models import (
    AuditEntry,
    ChangeRequest,
    Cohort,
    PriorityTier,
    Queue,
    ResourceFlavor,
    Team,
)
from apps.queues.overview import capacity_rows
from core import permissions
from core.csv_export import csv_response
from core.errors import InvalidInput, NotAllowed
from core.visibility import VisibleMixin


class TeamViewSet(VisibleMixin, viewsets.ReadOnlyModelViewSet):
    base_queryset = Team.objects.with_details()
    serializer_class = s.TeamSerializer
    lookup_field = "slug"

    @extend_schema(request=s.TeamCreateSerializer, responses={201: s.TeamSerializer})
    def create(self, request):
        body = s.TeamCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        team = services.create_team(actor=request.user, **body.validated_data)
        return Response(s.TeamSerializer(team).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=s.EnvelopeSerializer, responses=s.EnvelopeSerializer)
    @action(detail=True, methods=["get", "put"])
    def envelope(self, request, slug=None):
        team = self.get_object()
        if request.method == "PUT":
            body = s.EnvelopeSerializer(data=request.data)
            body.is_valid(raise_exception=True)
            services.save_envelope(team=team, actor=request.user, **body.validated_data)
        return Response(_envelope_data(team))

    def _admin_body(self, request, serializer, **kwargs) -> dict:
        # Authorize before reading the body: a non-admin gets 403 whatever they send.
        if not permissions.can_manage_catalog(request.user):
            raise NotAllowed("only platform admins change teams and their members")
        if serializer is None:
            return {}
        body = serializer(data=request.data, **kwargs)
        body.is_valid(raise_exception=True)
        return dict(body.validated_data)

    @extend_schema(request=s.TeamUpdateSerializer, responses=s.TeamSerializer)
    def partial_update(self, request, slug=None):
        team = self.get_object()
        data = self._admin_body(request, s.TeamUpdateSerializer, partial=True)
        current = {"display_name": team.display_name, "cost_center": team.cost_center}
        services.update_team(team=team, actor=request.user, **{**current, **data})
        return Response(s.TeamSerializer(self.get_object()).data)

    @extend_schema(request=s.MemberAddSerializer, responses={201: s.MemberSerializer})
    @action(detail=True, methods=["post"], url_path="members")
    def members(self, request, slug=None):
        """Add a member by username (an existing member gets the role given)."""
        team = self.get_object()
        data = self._admin_body(request, s.MemberAddSerializer)
        users = get_user_model().objects.filter(is_active=True)
        user = users.filter(username=data["username"]).first()
        if user is None:
            raise InvalidInput.single("username", f"no active user named {data['username']!r}")
        membership = services.add_membership(
            team=team, user=user, role=data["role"], actor=request.user
        )
        return Response(s.MemberSerializer(membership).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=s.MemberRoleSerializer, responses=s.MemberSerializer)
    @action(detail=True, methods=["put", "delete"], url_path=r"members/(?P<username>[^/]+)")
    def member(self, request, slug=None, username=None):
        """Change a member's role (PUT) or take them out of the team (DELETE)."""
        team = self.get_object()
        data = self._admin_body(
            request, s.MemberRoleSerializer if request.method == "PUT" else None
        )
        memberships = team.memberships.select_related("user")
        user = get_object_or_404(memberships, user__username=username).user
        if request.method == "DELETE":
            services.remove_membership(team=team, user=user, actor=request.user)
            return Response(status=status.HTTP_204_NO_CONTENT)
        membership = services.change_role(
            team=team, user=user, role=data["role"], actor=request.user
        )
        return Response(s.MemberSerializer(membership).data)


def _envelope_data(team: Team) -> dict:
    envelope = getattr(team, "envelope", None)
    if envelope is None:
        return {"min_weight": None, "max_weight": None, "limits": []}
    limits = [
        {
            "flavor": x.flavor.name,
            "resource": x.resource,
            "max_nominal": x.max_nominal,
            "max_borrowing": x.max_borrowing,
        }
        for x in envelope.limits.select_related("flavor")
    ]
    return {"min_weight": envelope.min_weight, "max_weight": envelope.max_weight, "limits": limits}


class CatalogViewSet(VisibleMixin, viewsets.ReadOnlyModelViewSet):
    """Read for everyone signed in; create, replace (PUT) or patch by name for admins."""

    lookup_field = "name"
    write_serializer = None

    def save(self, data: dict):
        raise NotImplementedError

    def create(self, request):
        return self._write(request, status.HTTP_201_CREATED)

    def update(self, request, name=None):
        self.get_object()
        return self._write(request, status.HTTP_200_OK, name=name)

    def partial_update(self, request, name=None):
        current = self.serializer_class(self.get_object()).data
        return self._write(request, status.HTTP_200_OK, name=name, base=current)

    def _write(self, request, code, name=None, base=None):
        # Authorize before reading the body: a non-admin gets 403 whatever they send.
        if not permissions.can_manage_catalog(request.user):
            raise NotAllowed("only platform admins change the catalog")
        if not isinstance(request.data, dict):
            raise InvalidInput.single("body", "must be a JSON object")
        data = {**(base or {}), **request.data, **({"name": name} if name else {})}
        body = self.write_serializer(data=data)
        body.is_valid(raise_exception=True)
        obj = self.save(dict(body.validated_data))
        return Response(self.serializer_class(obj).data, status=code)


class FlavorViewSet(CatalogViewSet):
    base_queryset = ResourceFlavor.objects.prefetch_related("capacities")
    serializer_class = s.FlavorSerializer
    write_serializer = s.FlavorWriteSerializer

    @extend_schema(request=s.FlavorWriteSerializer, responses={201: s.FlavorSerializer})
    def create(self, request):
        return super().create(request)

    @extend_schema(request=s.FlavorWriteSerializer, responses=s.FlavorSerializer)
    def update(self, request, name=None):
        return super().update(request, name)

    @extend_schema(request=s.FlavorWriteSerializer, responses=s.FlavorSerializer)
    def partial_update(self, request, name=None):
        return super().partial_update(request, name)

    def save(self, data):
        return services.save_flavor(actor=self.request.user, **data)


class CapacityViewSet(viewsets.ViewSet):
    """Capacity per flavor × resource divided by every reservation (the overview's table)."""

    @extend_schema(responses=s.CapacityRowSerializer(many=True))
    def list(self, request):
        rows = capacity_rows(load_capacity(), load_holders())
        return Response(s.CapacityRowSerializer(rows, many=True).data)


class CohortViewSet(CatalogViewSet):
    base_queryset = Cohort.objects.select_related("parent")
    serializer_class = s.CohortSerializer
    write_serializer = s.CohortWriteSerializer

    @extend_schema(request=s.CohortWriteSerializer, responses={201: s.CohortSerializer})
    def create(self, request):
        return super().create(request)

    @extend_schema(request=s.CohortWriteSerializer, responses=s.CohortSerializer)
    def update(self, request, name=None):
        return super().update(request, name)

    @extend_schema(request=s.CohortWriteSerializer, responses=s.CohortSerializer)
    def partial_update(self, request, name=None):
        return super().partial_update(request, name)

    def save(self, data):
        return services.save_cohort(actor=self.request.user, **data)


class PriorityTierViewSet(CatalogViewSet):
    base_queryset = PriorityTier.objects.all()
    serializer_class = s.PriorityTierSerializer
    write_serializer = s.PriorityTierWriteSerializer

    @extend_schema(request=s.PriorityTierWriteSerializer, responses={201: s.PriorityTierSerializer})
    def create(self, request):
        return super().create(request)

    @extend_schema(request=s.PriorityTierWriteSerializer, responses=s.PriorityTierSerializer)
    def update(self, request, name=None):
        return super().update(request, name)

    @extend_schema(request=s.PriorityTierWriteSerializer, responses=s.PriorityTierSerializer)
    def partial_update(self, request, name=None):
        return super().partial_update(request, name)

    def save(self, data):
        return services.save_priority_tier(actor=self.request.user, **data)


class QueueViewSet(VisibleMixin, viewsets.ReadOnlyModelViewSet):
    base_queryset = Queue.objects.with_policy()
    serializer_class = s.QueueSerializer

    @extend_schema(request=s.QueueCreateSerializer, responses={201: s.QueueSerializer})
    def create(self, request):
        body = s.QueueCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        queue = services.create_queue(actor=request.user, **body.validated_data)
        return Response(self._render(queue), status=status.HTTP_201_CREATED)

    @extend_schema(
        request=s.QueuePolicyWriteSerializer,
        responses={
            200: OpenApiResponse(s.QueueSerializer, description="Applied."),
            202: OpenApiResponse(
                s.ChangeRequestSerializer, description="Beyond the envelope: filed for approval."
            ),
            400: OpenApiResponse(
                description="A rule was broken; `errors` maps fields to messages."
            ),
            409: OpenApiResponse(
                description="Someone saved first; see `changes_since_your_version`."
            ),
        },
    )
    def update(self, request, pk=None):
        queue = self.get_object()
        body = s.QueuePolicyWriteSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        outcome = services.save_queue_policy(
            queue,
            body.proposal(),
            actor=request.user,
            expected_version=body.validated_data["version"],
            reason=body.validated_data["reason"],
            capacity_override_reason=body.validated_data["capacity_override_reason"],
        )
        if outcome.change_request is not None:
            data = s.ChangeRequestSerializer(outcome.change_request).data
            return Response(data, status=status.HTTP_202_ACCEPTED)
        return Response(self._render(outcome.queue))

    partial_update = update

    @extend_schema(request=s.QueuePolicyWriteSerializer, responses={200: dict})
    @action(detail=True, methods=["post"])
    def preview(self, request, pk=None):
        queue = self.get_object()
        body = s.QueuePolicyWriteSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        preview = services.preview_queue_change(queue, body.proposal(), actor=request.user)
        return Response(
            {
                "changes": preview.changes,
                "errors": preview.errors,
                "capacity_errors": preview.capacity_errors,
                "needs_approval": preview.needs_approval,
                "beyond_envelope": preview.breaches,
            }
        )

    @staticmethod
    def _render(queue: Queue) -> dict:
        return s.QueueSerializer(Queue.objects.with_policy().get(pk=queue.pk)).data


class ChangeRequestViewSet(VisibleMixin, viewsets.ReadOnlyModelViewSet):
    base_queryset = ChangeRequest.objects.select_related("queue", "requested_by", "decided_by")
    serializer_class = s.ChangeRequestSerializer

    def get_queryset(self):
        queryset = super().get_queryset()
        wanted = self.request.query_params.get("status")
        return queryset.filter(status=wanted) if wanted else queryset

    @extend_schema(request=s.DecisionSerializer, responses=s.ChangeRequestSerializer)
    @action(detail=True, methods=["post"])
    def approve(self, request, pk=None):
        body = self._decision(request)
        decided = services.approve_change_request(self.get_object(), actor=request.user, **body)
        return Response(s.ChangeRequestSerializer(decided).data)

    @extend_schema(request=s.DecisionSerializer, responses=s.ChangeRequestSerializer)
    @action(detail=True, methods=["post"])
    def reject(self, request, pk=None):
        body = self._decision(request)
        decided = services.reject_change_request(
            self.get_object(), actor=request.user, comment=body["comment"]
        )
        return Response(s.ChangeRequestSerializer(decided).data)

    @extend_schema(request=None, responses=s.ChangeRequestSerializer)
    @action(detail=True, methods=["post"])
    def withdraw(self, request, pk=None):
        decided = services.withdraw_change_request(self.get_object(), actor=request.user)
        return Response(s.ChangeRequestSerializer(decided).data)

    @staticmethod
    def _decision(request) -> dict:
        body = s.DecisionSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return dict(body.validated_data)


def stream_audit_csv(entries, filename: str) -> StreamingHttpResponse:
    return csv_response(audit_csv_rows(entries), filename)


class AuditEntryViewSet(
    VisibleMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet
):
    base_queryset = AuditEntry.objects.select_related("team")
    serializer_class = s.AuditEntrySerializer

    def get_queryset(self):
        queryset = super().get_queryset()
        team = self.request.query_params.get("team")
        return queryset.filter(team__slug=team) if team else queryset

    @extend_schema(responses={(200, "text/csv"): str})
    @action(detail=False, methods=["get"])
    def export(self, request):
        return stream_audit_csv(self.get_queryset().iterator(), "audit.csv")
