"""A job or notebook that could never start is refused at submission, in plain words.

Every expected ceiling is worked out by hand from the scenario: h100 has 64 GPUs in
the catalog; vision's queue has 16 of its own in the cohort "research".
"""

import pytest

from apps.jobs.models import BatchJob, Notebook, PoolFlavor
from apps.jobs.services.pool import save_setting
from apps.queues import services as queue_services
from apps.queues.models import AuditEntry, ResourceFlavor
from testkit.clients import api_as
from testkit.factories import make_queue, make_team, quota
from testkit.notebooks import IMAGE, notebook_body

GPU = "nvidia.com/gpu"

pytestmark = pytest.mark.django_db

JOBS, NOTEBOOKS = "/api/v1/jobs/", "/api/v1/notebooks/"


def job(pods: int, gpus_per_pod: int = 1) -> dict:
    return {
        "template": "pytorch-train",
        "flavor": "h100",
        "gpus_per_pod": gpus_per_pod,
        "pods": pods,
    }


def submit(user, body: dict):
    return api_as(user).post(JOBS, body, format="json")


def assert_refused(response, field: str, *phrases: str) -> None:
    assert response.status_code == 400, response.json()
    body = response.json()
    assert (body["code"], body["field"]) == ("never_fits", field)
    for phrase in phrases:
        assert phrase in body["detail"]


def lender(admin, slug: str, nominal: str, lending_limit: str | None = None, **policy):
    team = make_team(admin, slug)
    h100 = quota("h100", nominal, lending_limit=lending_limit)
    return make_queue(admin, team, cohort="research", quotas=[h100], **policy)


def test_a_job_that_exactly_fits_its_own_quota_is_accepted(scientist, queue, template):
    assert submit(scientist, job(pods=16)).status_code == 201


def test_one_gpu_more_than_the_queue_could_ever_get_is_refused(scientist, queue, template):
    audit_rows = AuditEntry.objects.count()
    response = submit(scientist, job(pods=17))
    assert_refused(
        response,
        "pods",
        "asks for 17 GPUs of h100 in total",
        "queue vision can get at most 16 (16 of its own)",
        "would never start",
    )
    assert not BatchJob.objects.exists()
    assert AuditEntry.objects.count() == audit_rows


def test_what_the_cohort_lends_is_counted(scientist, queue, other_queue, template):
    # nlp lends all of its 16: 16 + 16.
    assert submit(scientist, job(pods=32)).status_code == 201
    assert_refused(
        submit(scientist, job(pods=33)), "pods", "at most 32 (16 of its own + 16 borrowed)"
    )


def test_a_borrowing_limit_caps_what_is_borrowed(scientist, queue, other_queue, template, admin):
    from testkit.factories import set_policy

    set_policy(queue, admin, quotas=[quota("h100", "16", borrowing_limit="6")])
    assert submit(scientist, job(pods=22)).status_code == 201
    assert_refused(
        submit(scientist, job(pods=23)), "pods", "at most 22 (16 of its own + 6 borrowed)"
    )


def test_other_queues_lend_only_up_to_their_lending_limit(scientist, queue, template, admin):
    lender(admin, "speech", "16", lending_limit="4")
    lender(admin, "robots", "8")
    # 4 from speech, all 8 from robots: 16 + 12.
    assert submit(scientist, job(pods=28)).status_code == 201
    assert_refused(
        submit(scientist, job(pods=29)), "pods", "at most 28 (16 of its own + 12 borrowed)"
    )


def test_the_physical_capacity_caps_the_quota(scientist, queue, template, admin):
    lender(admin, "speech", "40", capacity_override_reason="more quota than GPUs, on purpose")
    lender(admin, "robots", "40", capacity_override_reason="more quota than GPUs, on purpose")
    # Quota says 16 + 80 = 96, but h100 has 64 GPUs.
    assert submit(scientist, job(pods=32, gpus_per_pod=2)).status_code == 201
    assert_refused(
        submit(scientist, job(pods=33, gpus_per_pod=2)),
        "pods",
        "asks for 66 GPUs of h100 in total",
        "at most 64",
        "the cluster has only 64 h100 GPUs",
    )


def test_a_pod_larger_than_the_whole_ceiling_names_gpus_per_pod(scientist, template, admin, team):
    make_queue(admin, team, quotas=[quota("h100", "4")])
    assert_refused(
        submit(scientist, job(pods=1, gpus_per_pod=5)),
        "gpus_per_pod",
        "asks for 5 GPUs of h100 per pod",
        "at most 4 (4 of its own)",
    )


@pytest.fixture
def generous_pool(pool, admin):
    """The pool's per-user limit out of the way, so only what exists is tested."""
    pool.max_gpus_per_user = 100
    save_setting(pool, actor=admin, created=False)
    return pool


def test_a_notebook_that_exactly_fits_the_pool_is_accepted(scientist, generous_pool):
    response = api_as(scientist).post(NOTEBOOKS, notebook_body(gpus=8), format="json")
    assert response.status_code == 201, response.json()


def test_a_notebook_larger_than_the_pool_is_refused(scientist, generous_pool):
    audit_rows = AuditEntry.objects.count()
    response = api_as(scientist).post(NOTEBOOKS, notebook_body(gpus=9), format="json")
    assert_refused(
        response,
        "gpus",
        "asks for 9 GPUs of h100",
        "interactive pool interactive has at most 8",
        "would never start",
    )
    assert not Notebook.objects.exists()
    assert AuditEntry.objects.count() == audit_rows


def test_a_notebook_pool_larger_than_the_cluster_is_capped(scientist, generous_pool, admin):
    # 40 a100 GPUs in the pool, but a100 has 32: the pool was sized for 40, then an admin
    # lowered the capacity with an override reason (the only way a pool outgrows it).
    a100 = ResourceFlavor.objects.get(name="a100")
    mig = {"nvidia.com/mig-1g.10gb": "56"}
    queue_services.save_flavor(name="a100", capacity={GPU: "40", **mig}, actor=admin)
    save_setting(
        PoolFlavor(pool=generous_pool, flavor=a100, gpus=40, cpu="64", memory="512Gi"),
        actor=admin,
        created=True,
    )
    queue_services.save_flavor(
        name="a100",
        capacity={GPU: "32", **mig},
        actor=admin,
        capacity_override_reason="two nodes went back to the vendor",
    )
    body = notebook_body(flavor="a100", gpus=33)
    response = api_as(scientist).post(NOTEBOOKS, body, format="json")
    assert_refused(response, "gpus", "asks for 33 GPUs of a100", "at most 32")


@pytest.fixture
def browser(client, scientist):
    client.force_login(scientist)
    return client


def test_the_job_page_shows_the_refusal_on_the_field(browser, queue, template):
    body = {
        **job(pods=17),
        "priority_tier": "p2-standard",
        "max_runtime_minutes": 60,
        "team": "vision",
        "command": "python",
    }
    response = browser.post("/jobs/new/", body)
    errors = response.context["form"].errors["pods"]
    assert "queue vision can get at most 16 (16 of its own)" in errors[0]
    assert "would never start" in response.content.decode()
    assert not BatchJob.objects.exists()


def test_the_notebook_page_shows_the_refusal_on_the_field(browser, generous_pool):
    body = {
        "image": IMAGE,
        "flavor": "h100",
        "gpus": 9,
        "profile": "standard",
        "ttl_hours": 4,
        "team": "vision",
    }
    response = browser.post("/notebooks/new/", body)
    assert "has at most 8" in response.context["form"].errors["gpus"][0]
    assert not Notebook.objects.exists()
