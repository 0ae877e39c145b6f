"""Every write to notebooks: request, renew, stop, expire, cull, and status from the cluster."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from urllib.parse import quote

from django.conf import settings
from django.db import transaction
from django.db.models import Count, Sum
from django.urls import reverse
from django.utils import timezone

from apps.jobs import fit
from apps.jobs.choices import NotebookState
from apps.jobs.models import InteractivePool, Notebook, NotebookImage, NotebookProfile
from apps.jobs.services.common import (
    Principal,
    after_commit,
    audit,
    can_manage,
    check_acts_for,
    flavor_capacity,
    new_name,
    notebook_to_provision,
    notebook_to_tear_down,
    portal_url,
    resolve_namespace,
    resolve_team,
)
from apps.jobs.services.counting import counted
from apps.jobs.services.idempotency import Idempotency, Submission
from apps.notifications.choices import NotificationKind
from apps.notifications.services import notify
from core import permissions
from core.audit import AuditAction
from core.dates import format_when, iso_z
from core.errors import NotAllowed, RuleBroken
from core.observability.metrics import NOTEBOOK_CULLS


@dataclass(frozen=True)
class NotebookRequest:
    """What a user may choose. Everything else (security, labels, queue) is ours."""

    image: str
    flavor: str
    gpus: int = 1
    profile: str = ""
    ttl_hours: int | None = None
    team: str = ""
    namespace: str = ""
    display_name: str = ""


def request_notebook(
    user,
    spec: NotebookRequest,
    *,
    actor: Principal,
    idempotency_key: str = "",
    now: datetime | None = None,
) -> Submission[Notebook]:
    """Reserve a notebook for ``user`` within their limits and the pool's capacity.

    The cluster objects are created after commit (``provision_notebook_task``). A
    retry with the same ``idempotency_key`` and body returns the first notebook.
    Each outcome is counted on ``qm_notebook_requests_total`` (``services.counting``).
    """
    return counted(
        "notebook",
        lambda: _request_notebook(
            user, spec, actor=actor, idempotency_key=idempotency_key, now=now
        ),
    )


def adopt_notebook(
    user, spec: NotebookRequest, *, name: str, actor: Principal, created_at: datetime
) -> Notebook:
    """Record a notebook whose cluster objects already exist, as ``user``'s since ``created_at``.

    The demo's seeded cluster has one (alice's, left idle); a database restored from an
    older backup would have others. Limits and pool capacity count as for a request;
    nothing is created in the cluster: the row starts Queued and status takes it on.
    """
    return _request_notebook(
        user, spec, actor=actor, idempotency_key="", now=created_at, existing=name
    ).record


@transaction.atomic
def _request_notebook(
    user,
    spec: NotebookRequest,
    *,
    actor: Principal,
    idempotency_key: str,
    now: datetime | None,
    existing: str = "",
) -> Submission[Notebook]:
    now = now or timezone.now()
    once = Idempotency.of(Notebook, idempotency_key, owner=user, spec=spec, actor=actor)
    if (replayed := once.replay()) is not None:
        return replayed
    pool, team, namespace, pool_flavor, profile, ttl = checked_notebook_request(
        user, spec, actor=actor
    )
    # Race: two requests (same user, or the last free GPUs of a flavor) both count the
    # active notebooks before either inserts, and both pass. Every request locks the
    # pool row first, so counting and inserting are serialised pool-wide.
    pool = InteractivePool.objects.select_for_update().get(pk=pool.pk)
    if (replayed := once.replay()) is not None:
        return replayed
    check_notebook_limits(pool, user, pool_flavor, spec.gpus)
    name = existing or new_name("nb")
    notebook = Notebook(
        owner=user,
        team=team,
        namespace=namespace,
        name=name,
        display_name=spec.display_name[:100],
        pool=pool,
        flavor=pool_flavor.flavor,
        gpu_resource=pool_flavor.gpu_resource,
        gpus=spec.gpus,
        image=spec.image,
        profile=profile,
        cpu=profile.cpu,
        memory=profile.memory,
        url=notebook_url(namespace, name, user.get_username()),
        created_at=now,
        expires_at=now + timedelta(hours=ttl),
        state=NotebookState.QUEUED if existing else NotebookState.REQUESTED,
    )
    # The pool lock already serialises requests; the constraint is the backstop.
    submission = once.insert(notebook)
    if submission.replayed:
        return submission
    after = {
        "gpus": spec.gpus,
        "flavor": pool_flavor.flavor.name,
        "image": spec.image,
        "expires_at": iso_z(notebook.expires_at),
    }
    if existing:
        audit(actor, AuditAction.CREATE, notebook, after=after, reason="adopted from the cluster")
    else:
        audit(actor, AuditAction.CREATE, notebook, after=after, reason="notebook requested")
        after_commit(notebook_to_provision, notebook.pk)
    return submission


def checked_notebook_request(user, spec: NotebookRequest, *, actor: Principal):
    """Every rule of a request but the limits (``check_notebook_limits``), without saving:
    the pool, team, namespace, pool flavor, profile and lifetime in hours it would get."""
    pool = InteractivePool.objects.current()
    if pool is None:
        raise RuleBroken("no interactive pool is enabled", code="pool_not_configured")
    team = resolve_team(user, spec.team)
    check_acts_for(actor, user, team)
    namespace = resolve_namespace(team, spec.namespace)
    return (pool, team, namespace, *_validate(pool, spec))


def _validate(pool: InteractivePool, spec: NotebookRequest):
    if not NotebookImage.objects.filter(image=spec.image, is_enabled=True).exists():
        raise RuleBroken(
            f"image {spec.image!r} is not on the allow-list",
            code="image_not_allowed",
            field="image",
        )
    pool_flavor = pool.flavors.select_related("flavor").filter(flavor__name=spec.flavor).first()
    if pool_flavor is None:
        raise RuleBroken(
            f"the pool has no {spec.flavor!r} GPUs", code="flavor_not_in_pool", field="flavor"
        )
    if spec.gpus < 1:
        raise RuleBroken("gpus must be at least 1", code="invalid", field="gpus")
    _check_ever_fits(pool, pool_flavor, spec.gpus)
    profiles = NotebookProfile.objects.all()
    profile = (
        profiles.filter(name=spec.profile).first()
        if spec.profile
        else profiles.filter(is_default=True).first() or profiles.first()
    )
    if profile is None:
        raise RuleBroken(f"no profile {spec.profile!r}", code="profile_not_found", field="profile")
    ttl = spec.ttl_hours if spec.ttl_hours is not None else pool.default_ttl_hours
    if ttl < 1:
        raise RuleBroken("ttl_hours must be at least 1", code="invalid", field="ttl_hours")
    if ttl > pool.max_ttl_hours:
        raise RuleBroken(
            f"ttl_hours may be at most {pool.max_ttl_hours}", code="ttl_too_long", field="ttl_hours"
        )
    return pool_flavor, profile, ttl


def _check_ever_fits(pool: InteractivePool, pool_flavor, gpus: int) -> None:
    """Refuse a notebook larger than the pool's share of its flavor: it never borrows."""
    flavor = pool_flavor.flavor.name
    own = fit.Ceiling(own=pool_flavor.gpus, borrowable=0)
    ceiling = fit.capped(own, flavor_capacity(flavor, pool_flavor.gpu_resource))
    if gpus <= ceiling.limit:
        return
    raise RuleBroken(
        f"asks for {gpus} GPUs of {flavor}; the interactive pool {pool} has at most "
        f"{ceiling.limit} of them, so it would never start",
        code="never_fits",
        field="gpus",
    )


def check_notebook_limits(pool: InteractivePool, user, pool_flavor, gpus: int) -> None:
    """The user's notebook and GPU limits, then the pool's room (``pool_full``)."""
    mine = Notebook.objects.active().filter(owner=user).aggregate(n=Count("pk"), g=Sum("gpus"))
    if mine["n"] + 1 > pool.max_notebooks_per_user:
        raise RuleBroken(
            f"you may run at most {pool.max_notebooks_per_user} notebooks", code="quota_exceeded"
        )
    if (mine["g"] or 0) + gpus > pool.max_gpus_per_user:
        raise RuleBroken(
            f"you may use at most {pool.max_gpus_per_user} notebook GPUs ({mine['g'] or 0} in use)",
            code="quota_exceeded",
            field="gpus",
        )
    used = (
        Notebook.objects.active()
        .filter(pool=pool, flavor=pool_flavor.flavor)
        .aggregate(g=Sum("gpus"))["g"]
        or 0
    )
    if used + gpus > pool_flavor.gpus:
        raise RuleBroken(
            f"{pool_flavor.gpus - used} {pool_flavor.flavor} GPUs "
            f"free in the interactive pool, {gpus} requested",
            code="pool_full",
            field="gpus",
        )


def notebook_url(namespace: str, name: str, user: str) -> str:
    """Where "Open" goes: ``QM_NOTEBOOK_URL_TEMPLATE`` filled in (values URL-quoted), or,
    with no template, the portal's page saying what a configured cluster would open."""
    template = settings.QM_NOTEBOOK_URL_TEMPLATE
    if not template:
        return portal_url(reverse("jobs:notebook-open", args=[namespace, name]))
    values = {"namespace": namespace, "name": name, "user": user}
    return template.format(**{k: quote(v, safe="") for k, v in values.items()})


# ----- lifecycle ------------------------------------------------------------------------


def _require_manager(actor: Principal, notebook: Notebook) -> None:
    if actor.user is not None and not can_manage(actor.user, notebook):
        raise NotAllowed("you may not change this notebook")


@transaction.atomic
def renew_notebook(
    notebook: Notebook, *, actor: Principal, hours: int | None = None, now: datetime | None = None
) -> Notebook:
    """Push the expiry to ``now + hours`` (default: the pool's TTL), at most the pool's maximum."""
    now = now or timezone.now()
    _require_manager(actor, notebook)
    pool = notebook.pool
    hours = hours if hours is not None else pool.default_ttl_hours
    if hours < 1:
        raise RuleBroken("hours must be at least 1", code="invalid", field="hours")
    if hours > pool.max_ttl_hours:
        raise RuleBroken(
            f"a renewal may add at most {pool.max_ttl_hours} hours",
            code="ttl_too_long",
            field="hours",
        )
    expires = now + timedelta(hours=hours)
    # Race: the expiry task stops the notebook while we renew. Only an active
    # notebook is renewed, decided by the row count of one conditional UPDATE.
    rows = Notebook.objects.active().filter(pk=notebook.pk)
    before = notebook.expires_at
    updated = rows.filter(state=NotebookState.EXPIRING).update(
        expires_at=expires, expiry_warned_at=None, state=NotebookState.READY, version=_bump()
    ) or rows.update(expires_at=expires, expiry_warned_at=None, version=_bump())
    if not updated:
        raise RuleBroken("the notebook has already stopped", code="not_renewable")
    notebook.refresh_from_db()
    audit(
        actor,
        AuditAction.UPDATE,
        notebook,
        after={"expires_at": iso_z(expires)},
        reason=f"renewed (was due {format_when(before)})",
    )
    return notebook


def _bump():
    from django.db.models import F

    return F("version") + 1


@transaction.atomic
def stop_notebook(
    notebook: Notebook,
    *,
    actor: Principal,
    state: str = NotebookState.STOPPED,
    reason: str = "stopped by its user",
    now: datetime | None = None,
) -> bool:
    """End the notebook (Stopped, Culled or Failed) and delete its cluster objects.

    Returns False when it had already ended (stopping twice is not an error).
    """
    now = now or timezone.now()
    _require_manager(actor, notebook)
    # Race: stop, expiry and culling may all end the same notebook at once; the
    # conditional UPDATE lets exactly one of them record the ending.
    updated = (
        Notebook.objects.active()
        .filter(pk=notebook.pk)
        .update(
            state=state, state_reason=reason, ended_at=now, queue_position=None, version=_bump()
        )
    )
    if not updated:
        return False
    notebook.refresh_from_db()
    audit(actor, AuditAction.DELETE, notebook, after={"state": state}, reason=reason)
    after_commit(notebook_to_tear_down, notebook.pk)
    by_admin = actor.user is not None and permissions.is_admin(actor.user)
    if by_admin and actor.user.pk != notebook.owner_id:
        count_cull("admin")
        tell_owner_ended(notebook, action=f"stopped by {actor.user.get_username()}")
    return True


def tell_owner_ended(notebook: Notebook, *, action: str) -> None:
    """Tell the owner the portal (or an admin) ended their notebook, and why. Once per
    notebook: only the caller whose conditional UPDATE ended it gets here."""
    context = {
        "notebook": notebook.display_name or notebook.name,
        "action": action,
        "when": format_when(notebook.ended_at),
        "reason": notebook.state_reason,
        "url": portal_url(reverse("jobs:notebook", args=[notebook.pk])),
    }
    dedupe_key = f"notebook-ended:{notebook.pk}"
    notify(notebook.owner, NotificationKind.NOTEBOOK_ENDED, context, dedupe_key=dedupe_key)


def count_cull(reason: str) -> None:
    """Count a notebook the portal (not its user) stopped: idle, expired or admin."""
    transaction.on_commit(lambda: NOTEBOOK_CULLS.labels(reason=reason).inc())
