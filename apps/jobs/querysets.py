"""Reads and visibility of notebooks and jobs. Every list is filtered by ``visible_to``.

Notebooks are private-ish (their URL opens a session): the owner, whoever requested
them (a launcher), leads of the team and admins see them. Batch jobs are team
business: every member of the team sees them. Anything else answers 404, the same
as a missing id.
"""

from __future__ import annotations

from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Cast

from apps.jobs.choices import JobState, NotebookState

# Columns NotebookSerializer reads, and the version the status cache is keyed by.
STATUS_FIELDS = (
    "id", "name", "display_name", "namespace", "state", "state_reason", "pending_reason",
    "queue_position", "url", "image", "gpus", "cpu", "memory", "created_at", "ready_at",
    "expires_at", "expiry_warned_at", "idle_warned_at", "ended_at", "owner__username",
    "requested_by__username", "team__slug", "flavor__name", "profile__name", "version",
)  # fmt: skip


def _anonymous(user) -> bool:
    return user is None or not user.is_authenticated


def _team_ids(user, *, role: str | None = None) -> models.QuerySet:
    from apps.queues.models import Membership

    rows = Membership.objects.filter(user=user)
    if role:
        rows = rows.filter(role=role)
    return rows.values("team_id")


class SubmittedWorkloadQuerySet(models.QuerySet):
    """Reads by state, the same for notebooks and jobs (the model names its ``STATES``)."""

    def active(self):
        return self.filter(state__in=self.model.STATES.active_values())

    def followed(self):
        """Rows whose cluster objects exist and have not ended: read back from the cluster."""
        return self.filter(state__in=self.model.STATES.followed_values())

    def times_out_of_order(self):
        """Rows where a later moment of the model's ``TIME_ORDER`` (created, admitted or
        ready, ended) comes before an earlier one; unset times are skipped (SQL NULL)."""
        order = self.model.TIME_ORDER
        wrong = Q()
        for i, earlier in enumerate(order):
            for later in order[i + 1 :]:
                wrong |= Q(**{f"{earlier}__gt": F(later)})
        return self.filter(wrong)

    def audit_ids_visible_to(self, user) -> models.QuerySet:
        """Ids of the rows ``user`` sees, as text: audit entries name them that way."""
        key = Cast("pk", output_field=models.CharField())
        return self.visible_to(user).annotate(audit_id=key).values("audit_id")


class NotebookQuerySet(SubmittedWorkloadQuerySet):
    @staticmethod
    def visibility_kind(user) -> str:
        """Which rule of ``visible_to`` applies to ``user``: everything else it reads of the
        user is the user's id (the status poll compiles its query once per kind)."""
        if _anonymous(user):
            return "nobody"
        return "admin" if user.is_platform_admin else "member"

    def visible_to(self, user) -> NotebookQuerySet:
        from core.roles import TeamRole

        kind = self.visibility_kind(user)
        if kind == "nobody":
            return self.none()
        if kind == "admin":
            return self.all()
        return self.filter(
            Q(owner=user)
            | Q(requested_by=user)
            | Q(team_id__in=_team_ids(user, role=TeamRole.LEAD))
        )

    def ended_since(self, since) -> NotebookQuerySet:
        """Notebooks that were ready and ended (stopped, culled or expired) at or after
        ``since``: the recorded lifetimes."""
        return self.filter(
            state__in=(NotebookState.STOPPED, NotebookState.CULLED),
            ended_at__gte=since,
            ready_at__isnull=False,
        )

    def with_related(self) -> NotebookQuerySet:
        return self.select_related("owner", "requested_by", "team", "flavor", "profile", "pool")

    def for_status(self) -> NotebookQuerySet:
        """Just what ``NotebookSerializer`` renders: the status poll is the hottest read, and
        every extra join (the pool) or wide row (two whole users) costs planning and transfer."""
        return self.select_related("owner", "requested_by", "team", "flavor", "profile").only(
            *STATUS_FIELDS
        )


def _team_business(queryset: models.QuerySet, user) -> models.QuerySet:
    """Rows of ``user``'s own and of every team they are in (admins: all)."""
    if _anonymous(user):
        return queryset.none()
    if user.is_platform_admin:
        return queryset.all()
    return queryset.filter(Q(owner=user) | Q(team_id__in=_team_ids(user)))


class BatchJobQuerySet(SubmittedWorkloadQuerySet):
    def visible_to(self, user) -> BatchJobQuerySet:
        return _team_business(self, user)

    def with_related(self) -> BatchJobQuerySet:
        return self.select_related("owner", "team", "flavor", "priority_tier", "queue")

    def succeeded_since(self, since) -> BatchJobQuerySet:
        """Jobs that ran to success and ended at or after ``since``: the recorded run times."""
        return self.filter(state=JobState.SUCCEEDED, ended_at__gte=since, admitted_at__isnull=False)


class InferenceServiceQuerySet(SubmittedWorkloadQuerySet):
    """Inference services are team business, like batch jobs."""

    def visible_to(self, user) -> InferenceServiceQuerySet:
        return _team_business(self, user)

    def with_related(self) -> InferenceServiceQuerySet:
        return self.select_related("owner", "team", "flavor", "priority_tier", "queue")


class SweepQuerySet(models.QuerySet):
    """Sweeps are team business, like their trials: every member of the team sees them."""

    def visible_to(self, user) -> SweepQuerySet:
        return _team_business(self, user)

    def with_related(self) -> SweepQuerySet:
        """With its trials' jobs, as few columns as progress and the trial list read."""
        jobs = self.model._meta.get_field("jobs").related_model  # BatchJob, without a cycle
        trials = jobs.objects.only("id", "name", "sweep_id", "trial_index", "attempt", "state")
        return self.select_related("owner", "team", "template").prefetch_related(
            models.Prefetch("jobs", queryset=trials.order_by("trial_index", "attempt"))
        )
