"""Administration pages for cohorts, priority tiers and team envelopes, and the index."""

from html import unescape

from apps.queues.models import AuditEntry, Cohort, Envelope, PriorityTier


def text(response) -> str:
    return unescape(response.content.decode())


def test_the_index_lists_the_catalog_and_the_nav_offers_it(client, queue, admin):
    client.force_login(admin)
    page = client.get("/administration/").content.decode()
    for link in (
        "/administration/teams/vision/",
        "/administration/flavors/h100/",
        "/administration/cohorts/research/",
        "/administration/tiers/p2-standard/",
    ):
        assert f'href="{link}"' in page
    assert '<a href="/administration/">Administration</a>' in client.get("/").content.decode()


def test_admin_creates_a_nested_cohort(client, catalog):
    client.force_login(catalog)
    form = {"name": "vision-lab", "parent": "research", "fair_weight": "2", "description": "lab"}
    assert client.post("/administration/cohorts/", form).status_code == 302
    cohort = Cohort.objects.get(name="vision-lab")
    assert (cohort.parent.name, cohort.fair_weight, cohort.description) == ("research", "2", "lab")
    assert AuditEntry.objects.filter(object_type="cohort", object_id=str(cohort.pk)).exists()


def test_a_cohort_cycle_is_named_and_nothing_is_written(client, catalog):
    client.force_login(catalog)
    client.post(
        "/administration/cohorts/", {"name": "child", "parent": "research", "fair_weight": "1"}
    )
    before = AuditEntry.objects.count()
    response = client.post(
        "/administration/cohorts/research/", {"parent": "child", "fair_weight": "1"}
    )
    assert response.status_code == 400
    assert "Parent: would create a cycle in the cohort tree" in text(response)
    assert Cohort.objects.get(name="research").parent is None
    assert AuditEntry.objects.count() == before


def test_a_bad_fair_weight_is_named(client, catalog):
    client.force_login(catalog)
    response = client.post("/administration/cohorts/research/", {"fair_weight": "heavy"})
    assert response.status_code == 400
    assert "Fair weight: " in text(response)
    assert Cohort.objects.get(name="research").fair_weight == "1"


def test_admin_creates_and_edits_a_priority_tier(client, catalog):
    client.force_login(catalog)
    form = {"name": "p0-urgent", "value": "1000", "description": "deadlines"}
    assert client.post("/administration/tiers/", form).status_code == 302
    assert PriorityTier.objects.get(name="p0-urgent").value == 1000
    response = client.post("/administration/tiers/p0-urgent/", {"value": "900"})
    assert response.status_code == 302
    tier = PriorityTier.objects.get(name="p0-urgent")
    assert (tier.value, tier.description) == (900, "")
    entry = AuditEntry.objects.filter(object_type="prioritytier").latest("pk")
    assert {"field": "value", "before": 1000, "after": 900} in entry.changes


def test_a_tier_value_beyond_32_bits_is_named(client, catalog):
    client.force_login(catalog)
    response = client.post("/administration/tiers/p2-standard/", {"value": str(2**31)})
    assert response.status_code == 400
    assert "Value: must be a 32-bit integer" in text(response)
    assert PriorityTier.objects.get(name="p2-standard").value == 100


def test_admin_sets_a_team_envelope(client, team, admin):
    client.force_login(admin)
    form = {
        "min_weight": "0.5",
        "max_weight": "2",
        "e|h100|nvidia.com/gpu|max_nominal": "24",
        "e|h100|nvidia.com/gpu|max_borrowing": "8",
        "e|a100|nvidia.com/gpu|max_nominal": "4",
        "reason": "Q3 plan",
    }
    response = client.post("/administration/teams/vision/envelope/", form)
    assert response.status_code == 302
    envelope = Envelope.objects.get(team=team)
    limits = {
        (limit.flavor.name, limit.resource): (limit.max_nominal, limit.max_borrowing)
        for limit in envelope.limits.select_related("flavor")
    }
    assert limits == {
        ("h100", "nvidia.com/gpu"): ("24", "8"),
        ("a100", "nvidia.com/gpu"): ("4", None),
    }
    assert (envelope.min_weight, envelope.max_weight) == ("0.5", "2")
    assert AuditEntry.objects.filter(object_type="envelope").latest("pk").reason == "Q3 plan"
    page = client.get("/administration/teams/vision/envelope/").content.decode()
    assert 'name="e|h100|nvidia.com/gpu|max_nominal" value="24"' in page


def test_an_envelope_limit_error_lands_on_its_row(client, team, envelope, admin):
    client.force_login(admin)
    form = {"max_weight": "2", "e|a100|nvidia.com/gpu|max_nominal": "1.5"}
    response = client.post("/administration/teams/vision/envelope/", form)
    assert response.status_code == 400
    errors = response.context["form"].errors
    assert list(errors) == ["e|a100|nvidia.com/gpu|max_nominal"]
    assert "limits[0].max_nominal" in errors["e|a100|nvidia.com/gpu|max_nominal"][0]
    assert [limit.max_nominal for limit in Envelope.objects.get(team=team).limits.all()] == ["24"]


def test_weights_out_of_order_are_named(client, team, admin):
    client.force_login(admin)
    response = client.post(
        "/administration/teams/vision/envelope/", {"min_weight": "3", "max_weight": "1"}
    )
    assert response.status_code == 400
    assert "max_weight: must not be below min_weight" in text(response)
    assert not Envelope.objects.filter(team=team).exists()


def test_a_lead_may_not_widen_their_own_envelope(client, team, envelope, lead):
    client.force_login(lead)
    form = {"e|h100|nvidia.com/gpu|max_nominal": "64"}
    assert client.post("/administration/teams/vision/envelope/", form).status_code == 403
    assert client.post("/administration/tiers/", {"name": "mine", "value": "1"}).status_code == 403
    assert (
        client.post("/administration/cohorts/", {"name": "mine", "fair_weight": "1"}).status_code
        == 403
    )
    assert [limit.max_nominal for limit in Envelope.objects.get(team=team).limits.all()] == ["24"]
    assert not PriorityTier.objects.filter(name="mine").exists()
    assert not Cohort.objects.filter(name="mine").exists()


def test_an_empty_post_names_the_required_fields(client, catalog):
    client.force_login(catalog)
    response = client.post("/administration/tiers/", {})
    assert response.status_code == 400
    assert "Name: This field is required." in text(response)
    assert "Value: This field is required." in text(response)
    assert PriorityTier.objects.count() == 1
