"""The notebook pool is a ClusterQueue of the cohort tree: lending its idle GPUs it sits in
its cohort, marked shared; strictly reserved it stands alone. The pool holds 8 h100 GPUs;
cohort ``research`` holds vision (h100 16, a100 8) and nlp (h100 16)."""

from apps.jobs.services.pool import save_setting
from apps.queues.models import Cohort


def tree_labels(client, url: str) -> list[str]:
    return client.get(url).context["cohort_tree"]["data"][0]["labels"]


def test_a_lending_pool_sits_in_its_cohort_on_the_admin_and_team_pages(
    client, admin, pool, queue, other_queue, scientist
):
    pool.cohort, pool.lend_idle_capacity = Cohort.objects.get(name="research"), True
    save_setting(pool, actor=admin, created=False)
    client.force_login(admin)
    assert tree_labels(client, "/administration/") == [
        # h100: vision 16 + nlp 16 + pool 8 = 40; a100: vision 8
        "cohort research · h100 40, a100 8",
        "nlp · h100 16",
        "vision · h100 16, a100 8",
        "interactive (shared) · h100 8",
    ]
    client.force_login(scientist)
    assert "interactive (shared) · h100 8" in tree_labels(client, "/teams/vision/")


def test_a_strictly_reserved_pool_stands_alone_outside_the_teams_trees(
    client, admin, pool, queue, scientist
):
    client.force_login(admin)
    assert tree_labels(client, "/administration/") == [
        "cohort research · h100 16, a100 8",
        "vision · h100 16, a100 8",
        "interactive (shared) · h100 8",
    ]
    client.force_login(scientist)
    assert "interactive (shared) · h100 8" not in tree_labels(client, "/teams/vision/")
