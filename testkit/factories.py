"""Factories and a small catalog builder for readable tests."""

import factory

from apps.accounts.models import User
from apps.queues import services
from apps.queues.models import Queue, Team
from apps.queues.snapshots import queue_snapshot


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.django.Password("pw")


def make_admin(username: str = "root") -> User:
    return UserFactory(username=username, is_platform_admin=True)


def make_flavor(admin, name="h100", capacity=None, **kwargs):
    return services.save_flavor(
        name=name, capacity=capacity or {"nvidia.com/gpu": "64"}, actor=admin, **kwargs
    )


def make_team(admin, slug="vision", **kwargs) -> Team:
    return services.create_team(
        slug=slug, display_name=slug.title(), namespaces=[f"team-{slug}"], actor=admin, **kwargs
    )


def make_queue(admin, team, name=None, production=False, **policy) -> Queue:
    queue = services.create_queue(
        name=name or team.slug, team=team, actor=admin, production=production
    )
    if policy:
        set_policy(queue, admin, **policy)
    return Queue.objects.get(pk=queue.pk)


def quota(
    flavor="h100", nominal="8", resource="nvidia.com/gpu", borrowing_limit=None, lending_limit=None
):
    return {
        "flavor": flavor,
        "resource": resource,
        "nominal": nominal,
        "borrowing_limit": borrowing_limit,
        "lending_limit": lending_limit,
    }


def snapshot(queue) -> dict:
    return queue_snapshot(Queue.objects.with_policy().get(pk=queue.pk))


def set_policy(queue, actor, reason="", capacity_override_reason="", **proposal):
    return services.save_queue_policy(
        queue,
        proposal,
        actor=actor,
        expected_version=snapshot(queue)["version"],
        reason=reason,
        capacity_override_reason=capacity_override_reason,
    )
