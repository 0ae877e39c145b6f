"""A compiled query answers each call with that call's values, compiles once per kind, and
refuses a query it could not run safely with other values."""

import pytest

from apps.accounts.models import User
from core.compiled_query import CompiledQuery
from testkit.factories import UserFactory


def usernames(user_id: int):
    return User.objects.filter(pk=user_id).values_list("username")


@pytest.mark.django_db
def test_it_answers_each_call_with_its_own_values():
    ada, bob = UserFactory(username="ada"), UserFactory(username="bob")
    query = CompiledQuery()
    assert query.rows("by id", usernames, ada.pk) == [("ada",)]
    assert query.rows("by id", usernames, bob.pk) == [("bob",)]
    assert query.rows("by id", usernames, max(ada.pk, bob.pk) + 1) == []


@pytest.mark.django_db
def test_it_builds_the_query_once_per_kind():
    ada = UserFactory(username="ada", is_platform_admin=True)
    UserFactory(username="bob")
    built = []

    def build(kind):
        def queryset(user_id):
            built.append(kind)
            rows = User.objects.filter(pk=user_id) if kind == "one" else User.objects.all()
            return rows.order_by("username").values_list("username")

        return queryset

    query = CompiledQuery()
    for _ in range(3):
        assert query.rows("one", build("one"), ada.pk) == [("ada",)]
        assert query.rows("all", build("all"), ada.pk) == [("ada",), ("bob",)]
    assert built == ["one", "all"]


@pytest.mark.django_db
def test_a_query_that_matches_nothing_answers_no_rows():
    ada = UserFactory(username="ada")
    query = CompiledQuery()
    assert query.rows("none", lambda user_id: User.objects.none(), ada.pk) == []


@pytest.mark.django_db
@pytest.mark.parametrize(
    "build",
    [
        lambda user_id: User.objects.extra(where=[f"id = {user_id}"]),
        lambda user_id: User.objects.filter(username=f"user-{user_id}"),
        lambda user_id: User.objects.filter(pk=user_id + 1),
    ],
    ids=["in the SQL text", "inside a string", "changed"],
)
def test_it_refuses_a_value_it_could_not_swap(build):
    with pytest.raises(ValueError, match="parameter of its own"):
        CompiledQuery().rows("kind", build, 1)
