"""Writing a brownfield import: the translated plan through the ordinary services.

``apps.queues.reconcile.importer`` turns the cluster's Kueue objects into an
``ImportPlan``; ``import_policy`` creates its rows through the same services a
person would use, so each one is validated and audited like a hand-made one.
"""

from __future__ import annotations

from django.db import transaction

from apps.queues import services
from apps.queues.models import Team, TeamNamespace
from apps.queues.reconcile.importer import ImportPlan
from core.errors import InvalidInput

IMPORT_REASON = "imported from the cluster (manage.py import_kueue)"


@transaction.atomic
def import_policy(plan: ImportPlan, *, actor) -> list[str]:
    """Create the imported catalog and queues through the ordinary services.

    Each item is validated and audited like a hand-made one; an item that fails
    validation is skipped and reported, the rest is imported.
    """
    problems: list[str] = []
    for item in plan.flavors:
        _try(
            problems,
            f"flavor {item['name']}",
            services.save_flavor,
            actor=actor,
            **item,
            reason=IMPORT_REASON,
        )
    for item in plan.cohorts:
        _try(problems, f"cohort {item['name']}", services.save_cohort, actor=actor, **item)
    for item in plan.tiers:
        _try(
            problems,
            f"priority tier {item['name']}",
            services.save_priority_tier,
            actor=actor,
            **item,
        )
    for item in plan.teams:
        _try(
            problems,
            f"team {item['slug']}",
            services.create_team,
            slug=item["slug"],
            display_name=item["slug"],
            namespaces=item["namespaces"],
            actor=actor,
        )
    for item in plan.queues:
        _try(problems, f"queue {item['name']}", _import_queue, item, actor)
    return problems


def adopt_imported_namespaces(plan: ImportPlan, *, actor) -> list[str]:
    """With ``--take-ownership`` the namespaces of the imported teams are adopted too:
    they hold the LocalQueues the admin asked the portal to take over."""
    problems: list[str] = []
    wanted = [name for team in plan.teams for name in team["namespaces"]]
    created = TeamNamespace.objects.filter(name__in=wanted).values_list("name", flat=True)
    for name in sorted(created):
        _try(
            problems,
            f"namespace {name}",
            services.adopt_namespace,
            namespace=name,
            actor=actor,
            reason=IMPORT_REASON,
        )
    return problems


def _try(problems: list[str], what: str, write, *args, **kwargs) -> None:
    try:
        with transaction.atomic():
            write(*args, **kwargs)
    except InvalidInput as exc:
        details = "; ".join(f"{path}: {', '.join(msgs)}" for path, msgs in exc.errors.items())
        problems.append(f"{what} not imported: {details}")


def _import_queue(item: dict, actor) -> None:
    team = Team.objects.get(slug=item["team"]) if item["team"] else None
    queue = services.create_queue(name=item["name"], team=team, actor=actor, reason=IMPORT_REASON)
    proposal = {k: v for k, v in item.items() if k not in ("name", "team")}
    services.save_queue_policy(
        queue,
        proposal,
        actor=actor,
        expected_version=queue.version,
        reason=IMPORT_REASON,
        capacity_override_reason=IMPORT_REASON,
    )
