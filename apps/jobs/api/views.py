"""Notebook and job endpoints: parse, authorize via ``visible_to``, call one service, render."""

from __future__ import annotations

from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    PolymorphicProxySerializer,
    extend_schema,
)
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from apps.accounts.models import ApiToken
from apps.jobs import services
from apps.jobs.api import serializers as s
from apps.jobs.api.status_cache import rendered_status
from apps.jobs.models import BatchJob, Notebook, Sweep
from apps.jobs.services.common import resolve_subject
from apps.jobs.services.notebook_quotes import quote_notebook
from apps.jobs.services.quotes import quote_job
from apps.jobs.services.sweeps import (
    SweepRequest,
    cancel_sweep,
    retry_failed_trials,
    set_sweep_limit,
    submit_sweep,
    sweep_limit,
)
from apps.queues.models import Team
from core.api_errors import domain_body
from core.errors import NotFound, RuleBroken
from core.visibility import VisibleMixin

IDEMPOTENCY = OpenApiParameter(
    "Idempotency-Key",
    str,
    OpenApiParameter.HEADER,
    description="Retries with the same key and body return the first result (201, "
    "header `Idempotent-Replayed: true`); the same key with another body is 422.",
)
ERRORS = {
    code: OpenApiResponse(s.ErrorSerializer, description=text)
    for code, text in (
        (400, "`invalid`, `unknown_field`, `never_fits`, `image_not_allowed`, …"),
        (403, "`not_a_member`, `launcher_not_allowed`, `tier_not_allowed`, `forbidden`"),
        (404, "Not found (or not yours)."),
        (
            409,
            "`quota_exceeded`, `pool_full` (a notebook request's carries `quote`: when the "
            "pool would have room), `pool_not_configured`, `not_renewable`",
        ),
        (422, "`idempotency_key_reused`"),
    )
}


def parse(serializer_class, data) -> dict:
    """Validated data; a bad body is answered by ``core.api_errors`` like any other."""
    body = serializer_class(data=data)
    body.is_valid(raise_exception=True)
    return body.validated_data


def principal(request) -> services.Principal:
    token = request.auth if isinstance(request.auth, ApiToken) else None
    return services.Principal(user=request.user, token=token)


def idempotency_key(request) -> str:
    key = request.headers.get("Idempotency-Key", "").strip()
    if len(key) > 255:
        raise RuleBroken(
            "Idempotency-Key is at most 255 characters", code="invalid", field="Idempotency-Key"
        )
    return key


def created(data: dict, replayed: bool) -> Response:
    response = Response(data, status=status.HTTP_201_CREATED)
    if replayed:
        response["Idempotent-Replayed"] = "true"
    return response


class NotebookViewSet(
    VisibleMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    viewsets.GenericViewSet,
):
    """GPU notebooks from the reserved interactive pool."""

    base_queryset = Notebook.objects.with_related()
    serializer_class = s.NotebookSerializer

    def get_queryset(self):
        queryset = super().get_queryset()
        return queryset.active() if self._active_only() else queryset

    def retrieve(self, request, pk=None):
        # The hottest read (clients poll it): see status_cache for why this is safe.
        return Response(rendered_status(request.user, pk, active_only=self._active_only()))

    def _active_only(self) -> bool:
        return self.request.query_params.get("active") in ("1", "true")

    @extend_schema(
        request=s.NotebookCreateSerializer,
        parameters=[IDEMPOTENCY],
        responses={201: s.NotebookSerializer, **ERRORS},
    )
    def create(self, request):
        data = parse(s.NotebookCreateSerializer, request.data)
        actor = principal(request)
        user = resolve_subject(actor, data.pop("user"))
        spec = services.NotebookRequest(**data)
        try:
            submission = services.request_notebook(
                user, spec, actor=actor, idempotency_key=idempotency_key(request)
            )
        except RuleBroken as exc:
            if exc.code != "pool_full":
                raise
            # A spawn page can say when the pool would have room: the quote comes along.
            quote = quote_notebook(user, spec, actor=actor)
            body = {**domain_body(exc), "quote": s.QuoteSerializer(quote.as_dict()).data}
            return Response(body, status=exc.status)
        return created(s.NotebookSerializer(submission.record).data, submission.replayed)

    @extend_schema(request=s.RenewSerializer, responses={200: s.NotebookSerializer, **ERRORS})
    @action(detail=True, methods=["post"])
    def renew(self, request, pk=None):
        data = parse(s.RenewSerializer, request.data)
        notebook = services.renew_notebook(
            self.get_object(), actor=principal(request), hours=data.get("hours")
        )
        return Response(s.NotebookSerializer(notebook).data)

    @extend_schema(responses={204: None, **ERRORS})
    def destroy(self, request, pk=None):
        services.stop_notebook(self.get_object(), actor=principal(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class JobViewSet(
    VisibleMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    viewsets.GenericViewSet,
):
    """Batch jobs from templates; ``?scope=mine`` for your own, else your teams'."""

    base_queryset = BatchJob.objects.with_related()

    def get_serializer_class(self):
        return s.JobDetailSerializer if self.action == "retrieve" else s.JobSerializer

    def get_queryset(self):
        queryset = super().get_queryset()
        if self.action == "retrieve":
            queryset = queryset.prefetch_related("events")
        if self.request.query_params.get("scope") == "mine":
            queryset = queryset.filter(owner=self.request.user)
        if team := self.request.query_params.get("team"):
            queryset = queryset.filter(team__slug=team)
        return queryset

    @extend_schema(
        request=s.JobCreateSerializer,
        parameters=[IDEMPOTENCY],
        responses={201: s.JobDetailSerializer, **ERRORS},
    )
    def create(self, request):
        submission = services.submit_job(
            request.user,
            s.job_request(request.data),
            actor=principal(request),
            idempotency_key=idempotency_key(request),
        )
        return created(s.JobDetailSerializer(submission.record).data, submission.replayed)

    @extend_schema(responses={204: None, **ERRORS})
    def destroy(self, request, pk=None):
        services.cancel_job(self.get_object(), actor=principal(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class SweepViewSet(
    VisibleMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    viewsets.GenericViewSet,
):
    """Sweeps: a job run once per trial, at most ``concurrency_limit`` trials at once."""

    base_queryset = Sweep.objects.with_related()

    def get_serializer_class(self):
        return s.SweepDetailSerializer if self.action == "retrieve" else s.SweepSerializer

    @extend_schema(
        request=s.SweepCreateSerializer,
        parameters=[IDEMPOTENCY],
        responses={201: s.SweepDetailSerializer, **ERRORS},
    )
    def create(self, request):
        data = parse(s.SweepCreateSerializer, request.data)
        sweep_fields = {
            k: data.pop(k) for k in ("parameters", "grid", "concurrency_limit") if k in data
        }
        submission = submit_sweep(
            request.user,
            SweepRequest(job=s.job_request_from(data), **sweep_fields),
            actor=principal(request),
            idempotency_key=idempotency_key(request),
        )
        sweep = self.base_queryset.get(pk=submission.record.pk)
        return created(s.SweepDetailSerializer(sweep).data, submission.replayed)

    @extend_schema(request=None, responses={200: s.SweepDetailSerializer, **ERRORS})
    @action(detail=True, methods=["post"])
    def cancel(self, request, pk=None):
        """Cancel the trials not ended and release no more."""
        cancel_sweep(self.get_object(), actor=principal(request))
        return Response(s.SweepDetailSerializer(self.base_queryset.get(pk=pk)).data)

    @extend_schema(request=None, responses={200: s.SweepDetailSerializer, **ERRORS})
    @action(detail=True, methods=["post"])
    def retry(self, request, pk=None):
        """Run every trial whose latest run failed again, within the sweep's limits."""
        retry_failed_trials(self.get_object(), actor=principal(request))
        return Response(s.SweepDetailSerializer(self.base_queryset.get(pk=pk)).data)


class SweepLimitViewSet(viewsets.ViewSet):
    """A team's sweep limit per user; every signed-in user reads it, as the team's policy."""

    lookup_field = "team"
    lookup_value_regex = "[-a-z0-9]+"

    @extend_schema(responses={200: s.SweepLimitSerializer, **ERRORS})
    def retrieve(self, request, team=None):
        return Response(self._data(sweep_limit(_team(team))))

    @extend_schema(
        request=s.SweepLimitSerializer, responses={200: s.SweepLimitSerializer, **ERRORS}
    )
    def update(self, request, team=None):
        data = parse(s.SweepLimitSerializer, request.data)
        return Response(self._data(set_sweep_limit(_team(team), actor=request.user, **data)))

    @staticmethod
    def _data(row) -> dict:
        return {"per_user": row.per_user, "max_per_user": row.max_per_user}


def _team(slug: str) -> Team:
    team = Team.objects.filter(slug=slug).first()
    if team is None:
        raise NotFound(f"no team {slug!r}")
    return team


class QuoteViewSet(viewsets.ViewSet):
    """A quote for a job or a notebook before it is asked for: its body, nothing written."""

    @extend_schema(
        request=PolymorphicProxySerializer(
            component_name="QuoteRequest",
            serializers=[s.JobQuoteRequestSerializer, s.NotebookQuoteRequestSerializer],
            resource_type_field_name=None,
        ),
        responses={
            200: s.QuoteSerializer,
            **ERRORS,
            503: OpenApiResponse(
                s.ErrorSerializer, description="`cluster_unavailable`: no cluster to ask"
            ),
        },
    )
    def create(self, request):
        body = request.data if isinstance(request.data, dict) else {}
        kind = body.get("kind", "job")
        if kind == "notebook":
            quote = notebook_quote(request, {k: v for k, v in body.items() if k != "kind"})
        elif kind == "job":
            job = s.job_request({k: v for k, v in body.items() if k != "kind"} or request.data)
            quote = quote_job(request.user, job, actor=principal(request))
        else:
            raise RuleBroken(
                'kind must be "job" or "notebook", e.g. "kind": "notebook"',
                code="invalid",
                field="kind",
            )
        return Response(s.QuoteSerializer(quote.as_dict()).data)


def notebook_quote(request, body: dict):
    """The quote of a notebook request's ``body`` (a launcher names the user it is for)."""
    data = parse(s.NotebookCreateSerializer, body)
    actor = principal(request)
    user = resolve_subject(actor, data.pop("user"))
    return quote_notebook(user, services.NotebookRequest(**data), actor=actor)
