"""The live view's arithmetic and the preemption story, against hand-worked scenarios."""

from decimal import Decimal

from prometheus_client import REGISTRY

from apps.live import compute, story
from apps.queues.quantity import format_amount


def cq(name, cohort, nominal, used, borrowed, lending_limit=None, flavor="h100"):
    resource = {"name": "nvidia.com/gpu", "nominalQuota": nominal}
    if lending_limit is not None:
        resource["lendingLimit"] = lending_limit
    spec = {"resourceGroups": [{"coveredResources": ["nvidia.com/gpu"],
            "flavors": [{"name": flavor, "resources": [resource]}]}]}  # fmt: skip
    if cohort:
        spec["cohortName"] = cohort
    usage = [{"name": flavor, "resources": [
        {"name": "nvidia.com/gpu", "total": used, "borrowed": borrowed}]}]  # fmt: skip
    status = {"flavorsReservation": usage, "pendingWorkloads": 0}
    return {"metadata": {"name": name}, "spec": spec, "status": status}


def test_lent_spreads_the_cohorts_borrowing_over_idle_lendable_quota():
    """research: a has 16 (no limit) and uses 4 → 12 idle lendable; b has 8 with
    lendingLimit 4 and uses 2 → its private 4 covers that, 4 idle lendable; c has 8 and
    uses 14 → borrows 6. 6 borrowed over 16 idle: a lends 12·6/16 = 4.5, b 4·6/16 = 1.5."""
    queues = [
        cq("a", "research", "16", "4", "0"),
        cq("b", "research", "8", "2", "0", lending_limit="4"),
        cq("c", "research", "8", "14", "6"),
        cq("solo", "", "8", "2", "0"),
    ]
    cells = [c for q in queues for c in compute.quota_cells(q)]
    lent = compute.lent(cells)
    gpu = ("h100", "nvidia.com/gpu")
    assert lent[("a", *gpu)] == Decimal("4.5")
    assert lent[("b", *gpu)] == Decimal("1.5")
    assert lent[("c", *gpu)] == 0
    assert lent[("solo", *gpu)] == 0


def test_a_lender_never_lends_more_than_it_has_idle():
    """x has 4 idle (8 nominal, 4 used); y borrows 10 (the rest from the cohort's own
    pool): x lends its 4, not 10."""
    cells = [
        *compute.quota_cells(cq("x", "co", "8", "4", "0")),
        *compute.quota_cells(cq("y", "co", "0", "10", "10")),
    ]
    assert compute.lent(cells)[("x", "h100", "nvidia.com/gpu")] == 4


def test_the_private_part_is_used_first():
    """nominal 10, lendingLimit 4 → 6 private; using 8 takes 2 of the lendable 4: 2 idle."""
    (cell,) = compute.quota_cells(cq("p", "co", "10", "8", "0", lending_limit="4"))
    assert (cell.lendable, cell.idle_lendable) == (4, 2)


def _unreadable_count() -> float:
    labels = {"reader": "live"}
    return REGISTRY.get_sample_value("qm_unreadable_quantities_total", labels) or 0.0


def test_a_cell_with_a_quantity_it_cannot_read_is_left_out_not_shown_as_zero(caplog):
    queue = cq("odd", "co", "8", "2", "0")
    a100 = {"name": "a100", "resources": [{"name": "nvidia.com/gpu", "nominalQuota": "lots"}]}
    queue["spec"]["resourceGroups"][0]["flavors"].append(a100)
    before = _unreadable_count()
    (cell,) = compute.quota_cells(queue)
    assert (cell.flavor, cell.nominal, cell.in_use) == ("h100", 8, 2)
    assert _unreadable_count() == before + 1
    assert "ClusterQueue odd spec a100/nvidia.com/gpu nominalQuota" in caplog.text


def test_a_request_it_cannot_read_is_left_out_of_the_total():
    """2 pods × 8 GPUs = 16; the unreadable memory request is not counted as 0 memory."""
    job = workload("j")
    job["spec"]["podSets"][0]["template"]["spec"]["containers"][0]["resources"]["requests"][
        "memory"
    ] = "big"
    before = _unreadable_count()
    assert compute.requests(job) == {"nvidia.com/gpu": Decimal(16)}
    assert _unreadable_count() == before + 1


def workload(name, *, ns="team-a", queue="a", priority=0, created="2026-01-01T00:00:00Z",
             conditions=(), uid=None, admission=None, gpus="8"):  # fmt: skip
    pod = {"containers": [{"resources": {"requests": {"nvidia.com/gpu": gpus}}}]}
    status = {"conditions": list(conditions)}
    if admission:
        status["admission"] = admission
    return {
        "metadata": {
            "namespace": ns,
            "name": name,
            "uid": uid or f"uid-{name}",
            "creationTimestamp": created,
        },  # fmt: skip
        "spec": {
            "queueName": queue,
            "priority": priority,
            "podSets": [{"name": "main", "count": 2, "template": {"spec": pod}}],
        },  # fmt: skip
        "status": status,
    }


def cond(kind, status="True", reason="", message="", at="2026-01-01T00:10:00Z"):
    return {"type": kind, "status": status, "reason": reason, "message": message,
            "lastTransitionTime": at}  # fmt: skip


def test_without_the_visibility_api_waiting_order_is_priority_then_age():
    old_low = workload("old-low", priority=1, created="2026-01-01T00:00:00Z")
    new_high = workload("new-high", priority=5, created="2026-01-01T00:05:00Z")
    old_high = workload("old-high", priority=5, created="2026-01-01T00:01:00Z")
    where = compute.positions([old_low, new_high, old_high], None)
    # 1-based: priority first, then age
    assert where == {"team-a/old-high": 1, "team-a/new-high": 2, "team-a/old-low": 3}
    assert compute.positions([old_low], {"team-a/old-low": 7}) == {"team-a/old-low": 7}


def test_queue_rows_put_workloads_under_their_cluster_queue_and_scope_them():
    lqs = [{"metadata": {"namespace": "team-a", "name": "a"}, "spec": {"clusterQueue": "a"}},
           {"metadata": {"namespace": "team-b", "name": "b"}, "spec": {"clusterQueue": "b"}}]  # fmt: skip
    admitted = workload(
        "run", conditions=[cond("QuotaReserved"), cond("Admitted")],
        admission={"clusterQueue": "a", "podSetAssignments": [
            {"name": "main", "count": 2, "flavors": {"nvidia.com/gpu": "h100"}}]},
    )  # fmt: skip
    waiting = workload("wait", conditions=[cond("QuotaReserved", "False", "Pending", "no room")])
    theirs = workload("theirs", ns="team-b", queue="b")
    done = workload("done", conditions=[cond("Finished")])
    rows = compute.queue_rows(
        [cq("a", "co", "16", "16", "0"), cq("b", "co", "8", "0", "0")],
        lqs,
        [admitted, waiting, theirs, done],
        {"a": {"team-a/wait": 1}},
    )
    rows = compute.with_local_namespaces(rows, lqs)
    a = rows[0]
    assert [w["name"] for w in a["admitted"]] == ["run"]
    assert a["admitted"][0]["requests"] == {"nvidia.com/gpu": "16"}  # 2 pods × 8
    assert a["admitted"][0]["flavors"][0]["flavors"] == {"nvidia.com/gpu": "h100"}
    assert [(w["name"], w["position"], w["waiting_reason"]) for w in a["waiting"]] == [
        ("wait", 1, "no room")
    ]
    assert a["pending_requests"] == {"nvidia.com/gpu": "16"}
    assert [w["name"] for w in rows[1]["waiting"]] == ["theirs"]

    mine = compute.visible_rows(rows, {"team-a"})
    assert [r["name"] for r in mine] == ["a"]
    assert compute.visible_rows(rows, None) == rows


PREEMPTOR_UID = "5f0c-preemptor"
MESSAGE = (
    f"Preempted to accommodate a workload (UID: {PREEMPTOR_UID}, JobUID: j-1) due to "
    "prioritization in the ClusterQueue; preemptor path: /co/a; preemptee path: /co/a"
)


def test_the_victim_names_its_preemptor_and_the_preemptor_its_victims():
    victim = workload("victim", conditions=[
        cond("Evicted", reason="Preempted", message=MESSAGE, at="2026-01-01T01:00:00Z"),
        cond("Preempted", reason="InClusterQueue", message=MESSAGE, at="2026-01-01T01:00:00Z"),
    ])  # fmt: skip
    preemptor = workload("boss", uid=PREEMPTOR_UID, priority=100)
    earlier = {  # an older preemption of another workload, known only from its Event
        "reason": "Preempted",
        "message": MESSAGE,
        "lastTimestamp": "2026-01-01T00:30:00Z",
        "involvedObject": {"kind": "Workload", "namespace": "team-b", "name": "old"},
    }
    everyone = [victim, preemptor]

    page = story.workload_page(victim, events=[], workloads=everyone, local_queues=[],
                               preempted_events=[earlier], namespaces={"team-a"})  # fmt: skip
    (by,) = page["preempted_by"]
    assert by["at"] == "2026-01-01T01:00:00Z"
    assert by["preemptor"] == {"uid": PREEMPTOR_UID, "namespace": "team-a", "name": "boss",
                               "known": True, "visible": True}  # fmt: skip

    page = story.workload_page(preemptor, events=[], workloads=everyone, local_queues=[],
                               preempted_events=[earlier], namespaces={"team-a"})  # fmt: skip
    assert [(v["namespace"], v["name"], v["visible"]) for v in page["preempted"]] == [
        ("team-a", "victim", True),
        ("team-b", "", False),  # another team's workload: named only by its namespace
    ]


def test_an_event_and_the_condition_of_one_preemption_count_once():
    victim = workload("victim", conditions=[
        cond("Evicted", reason="Preempted", message=MESSAGE, at="2026-01-01T01:00:00Z"),
        cond("Preempted", reason="InClusterQueue", message=MESSAGE, at="2026-01-01T01:00:00Z"),
    ])  # fmt: skip
    event = {"reason": "Preempted", "message": MESSAGE, "lastTimestamp": "2026-01-01T01:00:00Z"}
    assert len(story.preempted_by(victim, [event], {}, None)) == 1
    (gone,) = story.preempted_by(victim, [event], {}, None)
    assert gone["preemptor"]["known"] is False and gone["preemptor"]["uid"] == PREEMPTOR_UID


def test_the_preemptors_named_come_from_the_condition_and_the_events():
    victim = workload("v", conditions=[cond("Preempted", reason="InClusterQueue", message=MESSAGE)])
    other = MESSAGE.replace(PREEMPTOR_UID, "another-uid")
    events = [{"reason": "Preempted", "message": other}, {"reason": "Admitted", "message": "ok"}]
    assert story.named_preemptors(victim, events) == {PREEMPTOR_UID, "another-uid"}


def test_memory_is_shown_with_the_largest_binary_suffix_that_is_exact():
    """2 pods × 256Gi = 512Gi = 549755813888 bytes; 1.5Gi per pod × 2 = 3Gi; 1536Mi alone
    is 1.5Gi, which no suffix states exactly above Mi; 1000 bytes stays 1000."""
    job = workload("j")
    asked = job["spec"]["podSets"][0]["template"]["spec"]["containers"][0]["resources"]
    asked["requests"]["memory"] = "256Gi"
    row = compute.workload_row(job, "a", None)
    assert row["requests"] == {"memory": "512Gi", "nvidia.com/gpu": "16"}
    assert format_amount("memory", Decimal(2 * 1536 * 1024**2)) == "3Gi"
    assert format_amount("memory", Decimal(1536 * 1024**2)) == "1536Mi"
    assert format_amount("ephemeral-storage", Decimal(1000)) == "1000"
    assert format_amount("nvidia.com/gpu", Decimal(1024)) == "1024"
