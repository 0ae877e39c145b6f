"""Scenario tests: each YAML file in scenarios/ encodes one documented Kueue
behaviour; these tests assert who is admitted where, who waits and why, and
who is preempted and for what reason."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kueuemodel.scenario import build_simulation, run_scenario

SCENARIOS = Path(__file__).parent / "scenarios"


def run(name: str, until: str | None = None) -> dict[str, dict[str, Any]]:
    """Workloads after the run, keyed ``namespace/name``."""
    workloads = run_scenario((SCENARIOS / name).read_text(), until)
    return {f"{w['metadata']['namespace']}/{w['metadata']['name']}": w for w in workloads}


def condition(wl: dict[str, Any], kind: str) -> dict[str, Any] | None:
    return next((c for c in wl.get("status", {}).get("conditions", []) if c["type"] == kind), None)


def is_admitted(wl: dict[str, Any]) -> bool:
    admitted = condition(wl, "Admitted")
    return bool(admitted and admitted["status"] == "True")


def pending_reason(wl: dict[str, Any]) -> str:
    reserved = condition(wl, "QuotaReserved")
    assert reserved and reserved["status"] == "False", wl["metadata"]["name"]
    return reserved["reason"]


def flavors(wl: dict[str, Any]) -> dict[str, str]:
    assignments = wl["status"]["admission"]["podSetAssignments"]
    return {res: flavor for psa in assignments for res, flavor in psa["flavors"].items()}


def preempted_reason(wl: dict[str, Any]) -> str:
    preempted = condition(wl, "Preempted")
    assert preempted and preempted["status"] == "True", wl["metadata"]["name"]
    return preempted["reason"]


def test_it_borrows_unused_quota_from_the_cohort():
    big = run("borrowing.yaml")["team-a/big"]
    assert is_admitted(big)
    assert big["status"]["admission"]["podSetAssignments"][0]["resourceUsage"] == {
        "cpu": "6",
        "memory": "6Gi",
    }


def test_it_reports_borrowed_quota_in_cluster_queue_status():
    from kueuemodel.reports import cluster_queue_status

    sim = build_simulation((SCENARIOS / "borrowing.yaml").read_text())
    sim.run()
    cpu = cluster_queue_status(sim.cluster, "team-a")["flavorsReservation"][0]["resources"][0]
    assert cpu == {"name": "cpu", "total": "6", "borrowed": "2"}


def test_it_only_lends_up_to_the_lending_limit():
    result = run("lending_limit.yaml")
    assert pending_reason(result["ns/too-big"]) == "ExceedsMaxQuota"
    assert is_admitted(result["ns/fits-with-lent"])


def test_it_falls_back_to_the_next_flavor_in_order():
    result = run("flavor_fallback.yaml")
    assert flavors(result["ns/first"]) == {"cpu": "on-demand"}
    assert flavors(result["ns/second"]) == {"cpu": "spot"}
    assert flavors(result["ns/pinned-to-spot"]) == {"cpu": "spot"}


def test_it_flags_requests_above_max_quota_and_uncovered_resources():
    result = run("exceeds_and_no_match.yaml")
    assert pending_reason(result["ns/huge"]) == "ExceedsMaxQuota"
    assert "maximum capacity" in condition(result["ns/huge"], "QuotaReserved")["message"]
    assert pending_reason(result["ns/wants-gpu"]) == "NoMatchingFlavor"
    assert (
        "nvidia.com/gpu unavailable"
        in condition(result["ns/wants-gpu"], "QuotaReserved")["message"]
    )
    assert is_admitted(result["ns/small"])


def test_strict_fifo_head_blocks_the_queue():
    result = run("strict_fifo.yaml")
    assert pending_reason(result["ns/head"]) == "WaitingForQuota"
    behind = result["ns/behind"]
    assert not is_admitted(behind) and behind.get("status", {}).get("admission") is None


def test_best_effort_fifo_lets_smaller_workloads_past():
    result = run("best_effort_fifo.yaml")
    assert pending_reason(result["ns/head"]) == "WaitingForQuota"
    assert is_admitted(result["ns/behind"])


def test_within_cluster_queue_lower_priority_preempts():
    result = run("within_cq_lower_priority.yaml")
    assert preempted_reason(result["ns/running"]) == "InClusterQueue"
    assert condition(result["ns/running"], "Evicted")["reason"] == "Preempted"
    assert result["ns/running"]["status"].get("admission") is None
    assert is_admitted(result["ns/pending"])


def test_lower_priority_policy_keeps_equal_priority_running():
    result = run("within_cq_equal_priority_kept.yaml")
    assert is_admitted(result["ns/running"])
    assert pending_reason(result["ns/pending"]) == "WaitingForQuota"


def test_lower_or_newer_equal_priority_preempts_newer_equal():
    result = run("within_cq_newer_equal.yaml")
    assert preempted_reason(result["ns/running"]) == "InClusterQueue"
    assert is_admitted(result["ns/pending"])


def test_reclaim_lower_priority_takes_back_lent_quota():
    result = run("reclaim_lower_priority.yaml")
    victims = [k for k in ("borrower/borrow-1", "borrower/borrow-2") if not is_admitted(result[k])]
    assert victims == ["borrower/borrow-2"]  # most recently admitted goes first
    assert preempted_reason(result["borrower/borrow-2"]) == "InCohortReclamation"
    assert is_admitted(result["lender/reclaimer"])


def test_reclaim_lower_priority_spares_higher_priority_borrowers():
    result = run("reclaim_lower_priority_blocked.yaml")
    assert is_admitted(result["borrower/borrow-1"]) and is_admitted(result["borrower/borrow-2"])
    assert pending_reason(result["lender/reclaimer"]) == "WaitingForQuota"


def test_reclaim_any_ignores_priority():
    result = run("reclaim_any.yaml")
    assert preempted_reason(result["borrower/borrow-2"]) == "InCohortReclamation"
    assert is_admitted(result["lender/reclaimer"])


def test_reclaim_never_waits_for_borrowers():
    result = run("reclaim_never.yaml")
    assert is_admitted(result["borrower/borrow-1"]) and is_admitted(result["borrower/borrow-2"])
    assert pending_reason(result["lender/reclaimer"]) == "WaitingForQuota"


def test_borrow_within_cohort_respects_max_priority_threshold():
    result = run("borrow_within_cohort.yaml")
    assert preempted_reason(result["batch/below-threshold"]) == "InCohortReclaimWhileBorrowing"
    assert is_admitted(result["batch/above-threshold"])
    assert is_admitted(result["urgent/needs-to-borrow"])


def test_preemption_picks_a_minimal_victim_set():
    result = run("minimal_victims.yaml")
    assert preempted_reason(result["cq/large"]) == "InClusterQueue"
    assert is_admitted(result["cq/mid"]) and is_admitted(result["cq/newest"])
    assert is_admitted(result["cq/preemptor"])


def test_preemption_message_names_the_preemptor():
    result = run("within_cq_lower_priority.yaml")
    message = condition(result["ns/running"], "Preempted")["message"]
    assert result["ns/pending"]["metadata"].get("uid") is None  # generated UID is used
    assert message.startswith("Preempted to accommodate a workload (UID: ")
    assert "preemptor path: /cq" in message


def _admitted_count(result: dict[str, dict[str, Any]], namespace: str) -> int:
    return sum(
        1 for key, wl in result.items() if key.startswith(namespace + "/") and is_admitted(wl)
    )


def test_fair_sharing_divides_the_pool_by_weight():
    result = run("fair_sharing_weights.yaml")
    assert _admitted_count(result, "team-a") == 8
    assert _admitted_count(result, "team-b") == 4
    reasons = {
        preempted_reason(w)
        for k, w in result.items()
        if k.startswith("team-b/") and condition(w, "Preempted")
    }
    assert reasons == {"InCohortFairSharing"}


def test_fair_sharing_weight_zero_keeps_only_nominal_quota():
    result = run("fair_sharing_weight_zero.yaml")
    assert _admitted_count(result, "team-a") == 2
    assert _admitted_count(result, "team-b") == 6


def test_fair_sharing_reports_weighted_share():
    from kueuemodel.reports import cluster_queue_status

    sim = build_simulation((SCENARIOS / "fair_sharing_weights.yaml").read_text())
    sim.run()
    # 8 of 12 borrowed at weight 2 and 4 of 12 at weight 1: both 333.3 per mille.
    assert cluster_queue_status(sim.cluster, "team-a")["fairSharing"] == {"weightedShare": 334}
    assert cluster_queue_status(sim.cluster, "team-b")["fairSharing"] == {"weightedShare": 334}


def test_hierarchical_cohorts_share_parent_pool_and_cap_subtrees():
    result = run("hierarchical_cohorts.yaml")
    assert is_admitted(result["a1/uses-org-pool"])
    assert pending_reason(result["b1/over-subtree-limit"]) == "ExceedsMaxQuota"
    # a1 used the org pool (4) and its own 2; b1's own nominal is still free.
    assert is_admitted(result["b1/own-nominal-still-free"])


def test_a_head_fitting_its_sub_cohort_goes_before_a_higher_priority_root_borrower():
    result = run("borrowing_level_order.yaml")
    # v2 fits research's unused 8 (level 1); i2 would borrow the pool's (level 2).
    assert (
        condition(result["vision/v2"], "Admitted")["lastTransitionTime"] == "2026-03-01T10:00:01Z"
    )
    # i2 waits for v2 (10 min) and is requeued one batch second after the release.
    i2 = result["inference/i2"]
    assert condition(i2, "Admitted")["lastTransitionTime"] == "2026-03-01T10:10:02Z"
    assert condition(i2, "Preempted") is None
    assert "schedulingStats" not in i2["status"]


def test_a_queue_without_nominal_quota_reclaims_what_its_cohort_lends():
    result = run("hierarchical_reclaim_over_nominal.yaml")
    i1, v1 = result["inference/i1"], result["vision/v1"]
    # v1 arrives at 10:05 needing 8 more than its 0: research has 8, lent to i1.
    assert condition(i1, "Requeued")["lastTransitionTime"] == "2026-03-01T10:05:00Z"
    assert "due to reclamation within the cohort;" in condition(i1, "Preempted")["message"]
    assert condition(v1, "Admitted")["lastTransitionTime"] == "2026-03-01T10:05:00Z"
    # v1 runs 10 min; i1 comes back one requeue batch second after, for its hour.
    assert condition(i1, "Admitted")["lastTransitionTime"] == "2026-03-01T10:15:01Z"
    assert condition(i1, "Finished")["lastTransitionTime"] == "2026-03-01T11:15:01Z"


def test_fair_sharing_ranks_a_head_by_whether_its_subtree_borrows_at_each_level():
    result = run("fair_tournament_subtree_borrowing.yaml")
    # a1 borrows within A (8 of 8); b1 is within its own 4 but B would hold 12 of 8.
    assert condition(result["a1/a1-next"], "Admitted")["lastTransitionTime"] == (
        "2026-03-01T10:05:00Z"
    )
    # b1-next waits for a1-next's 10 min and one requeue batch second.
    assert condition(result["b1/b1-next"], "Admitted")["lastTransitionTime"] == (
        "2026-03-01T10:15:01Z"
    )


def test_a_head_without_victims_holds_its_nominal_quota_for_the_cycle():
    result = run("victimless_head_holds_quota.yaml")
    # 2 free at 10:05: a-head (4) holds 4 each cycle, so c-next (2) no longer fits.
    assert condition(result["a/a-head"], "Admitted")["lastTransitionTime"] == (
        "2026-03-01T10:10:00Z"
    )
    # Tried once a-head took the 4 c-run freed, c-next was parked: back one requeue
    # second after a-head ends.
    assert condition(result["c/c-next"], "Admitted")["lastTransitionTime"] == (
        "2026-03-01T10:20:01Z"
    )


def test_a_gang_is_admitted_whole_or_not_at_all():
    result = run("gang.yaml")
    assert is_admitted(result["ns/holder"])
    gang = result["ns/gang"]
    assert pending_reason(gang) == "WaitingForQuota"
    assert gang["status"].get("admission") is None


@pytest.mark.parametrize(
    ("scenario", "running_admitted"),
    [("stop_policy_hold.yaml", True), ("stop_policy_hold_and_drain.yaml", False)],
)
def test_stop_policy(scenario: str, running_admitted: bool):
    result = run(scenario)
    assert is_admitted(result["ns/running"]) is running_admitted
    assert pending_reason(result["ns/pending"]) == "Inadmissible"
    if not running_admitted:
        assert condition(result["ns/running"], "Evicted")["reason"] == "ClusterQueueStopped"


def test_nil_namespace_selector_selects_nothing():
    result = run("namespace_selector.yaml")
    assert pending_reason(result["research/nil-selector"]) == "Misconfigured"
    assert is_admitted(result["research/matching"])
    assert pending_reason(result["other/not-matching"]) == "Misconfigured"


def test_fragmented_nodes_leave_an_admitted_workload_unschedulable():
    result = run("fragmented_nodes.yaml", until="10m")
    two = result["ns/two"]
    assert is_admitted(two)
    ready = condition(two, "PodsReady")
    assert ready["status"] == "False" and "no node has 2 free nvidia.com/gpu" in ready["message"]


def test_fragmented_nodes_start_once_a_node_frees_up():
    two = run("fragmented_nodes.yaml")["ns/two"]
    assert condition(two, "PodsReady")["status"] == "True"
    # three-a finishes after 1h; two starts then and runs 30m.
    assert condition(two, "Finished")["lastTransitionTime"] == "2026-03-01T11:30:02Z"


def test_finish_releases_quota_for_the_next_and_victims_come_back():
    result = run("finish_then_next.yaml")
    first, second = result["ns/first"], result["ns/second"]
    job = next(w for k, w in result.items() if k.startswith("ns/job-hotfix-"))
    assert job["spec"]["priority"] == 1000
    assert condition(job, "Admitted")["lastTransitionTime"] == "2026-03-01T10:30:01Z"
    assert condition(first, "Requeued")["reason"] == "Preempted"
    assert condition(first, "Preempted")["status"] == "False"
    assert condition(first, "Preempted")["message"].startswith(
        "Previously: Preempted to accommodate"
    )
    # hotfix ends 10:40:01; the parked first and second are requeued one batch
    # second later (Kueue's requeueBatchPeriod): first, older, runs 10:40:02-11:40:02,
    # and second is requeued and admitted one second after that release.
    assert condition(first, "Finished")["lastTransitionTime"] == "2026-03-01T11:40:02Z"
    assert condition(second, "Admitted")["lastTransitionTime"] == "2026-03-01T11:40:03Z"
    assert condition(second, "Finished")["reason"] == "Succeeded"


def test_until_stops_the_clock():
    result = run("finish_then_next.yaml", until="15m")
    assert is_admitted(result["ns/first"]) and condition(result["ns/first"], "Finished") is None
    assert pending_reason(result["ns/second"]) == "WaitingForQuota"


def test_when_can_borrow_try_next_flavor_prefers_no_borrowing():
    result = run("fungibility.yaml")
    assert flavors(result["stop-at-borrow/three-cpus"]) == {"cpu": "reserved"}
    assert flavors(result["try-next/three-cpus"]) == {"cpu": "spot"}


def test_preemption_records_events_on_victim_and_preemptor():
    sim = build_simulation((SCENARIOS / "within_cq_lower_priority.yaml").read_text())
    sim.run()
    seen = {(e["involvedObject"]["name"], e["reason"]) for e in sim.cluster.events}
    assert {("running", "EvictedDueToPreempted"), ("running", "Preempted")} <= seen
    assert {
        ("pending", "PreemptedWorkload"),
        ("pending", "QuotaReserved"),
        ("pending", "Admitted"),
    } <= seen


def test_cli_prints_a_kubernetes_list(capsys):
    import json

    from kueuemodel.scenario import main

    assert main([str(SCENARIOS / "borrowing.yaml"), "-o", "json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["kind"] == "List" and printed["apiVersion"] == "v1"
    assert [w["metadata"]["name"] for w in printed["items"]] == ["big"]


def test_fungibility_preference_and_when_can_preempt():
    # Worked out from Kueue's flavorFungibility docs; the scenario's header has the
    # arithmetic of each flavor for each queue.
    result = run("fungibility_preference.yaml", until="30m")
    # BorrowingOverPreemption: borrowing in "second" beats reclaiming "first".
    assert flavors(result["borrow-first/urgent"]) == {"cpu": "second"}
    assert is_admitted(result["borrower-a/running"])
    assert condition(result["borrower-a/running"], "Preempted") is None
    # PreemptionOverBorrowing: reclaiming "first" (no borrowing) beats borrowing; the
    # victim then comes back borrowing "second" from lender-b.
    victim = result["borrower-b/running"]
    assert "reclamation within the cohort" in condition(victim, "Preempted")["message"]
    assert flavors(victim) == {"cpu": "second"}
    assert flavors(result["preempt-first/urgent"]) == {"cpu": "first"}
    # whenCanPreempt MayStopSearch: "first" fits by preempting, the search stops there;
    # the victim then comes back on "second".
    assert flavors(result["stop-at-preempt/urgent"]) == {"cpu": "first"}
    assert condition(result["stop-at-preempt/running"], "Requeued")["reason"] == "Preempted"
    assert flavors(result["stop-at-preempt/running"]) == {"cpu": "second"}
    # TryNextFlavor (default): "second" fits without preempting anyone.
    assert flavors(result["try-next-preempt/urgent"]) == {"cpu": "second"}
    assert is_admitted(result["try-next-preempt/running"])
    assert condition(result["try-next-preempt/running"], "Requeued") is None


def test_a_required_rack_is_admitted_in_one_rack_and_a_required_host_never_fits():
    result = run("topology_required.yaml", until="30m")
    host = result["ns/same-host"]
    assert not is_admitted(host)
    assert pending_reason(host) == "Pending"
    message = condition(host, "QuotaReserved")["message"]
    assert 'topology "b200" allows to fit only 1 out of 2 pod(s)' in message
    assert is_admitted(result["ns/rack-a"]) and is_admitted(result["ns/rack-b"])
    rack_c = result["ns/rack-c"]  # quota 48 <= 64, but 32 of 32 GPUs are in use
    assert not is_admitted(rack_c)
    assert (
        'topology "b200" doesn\'t allow to fit any of 2 pod(s)'
        in (condition(rack_c, "QuotaReserved")["message"])
    )


def test_a_required_rack_waits_for_a_rack_to_clear():
    result = run("topology_required.yaml", until="1h30m")
    rack_a, rack_c = result["ns/rack-a"], result["ns/rack-c"]
    # rack-a runs 1h from its admission (10:00:03, when the scenario's workloads are all
    # in) and frees r1 at 11:00:03; rack-c is tried again one requeue batch (1 s) later.
    assert condition(rack_a, "Admitted")["lastTransitionTime"] == "2026-03-01T10:00:03Z"
    assert condition(rack_a, "Finished")["lastTransitionTime"] == "2026-03-01T11:00:03Z"
    assert condition(rack_c, "Admitted")["lastTransitionTime"] == "2026-03-01T11:00:04Z"


def test_freed_nodes_wake_another_cluster_queue_on_the_same_topology_flavor():
    result = run("topology_shared_nodes.yaml", until="1h30m")
    a1, b1 = result["ns/a1"], result["ns/b1"]
    assert condition(a1, "Admitted")["lastTransitionTime"] == "2026-03-01T10:00:01Z"
    assert condition(a1, "Finished")["lastTransitionTime"] == "2026-03-01T11:00:01Z"
    assert condition(b1, "Admitted")["lastTransitionTime"] == "2026-03-01T11:00:02Z"


def test_a_preferred_level_falls_back_to_wider_levels_then_spreads():
    """Placements worked out by hand in topology_preferred.yaml's header."""
    sim = build_simulation((SCENARIOS / "topology_preferred.yaml").read_text())
    sim.run(sim.cluster.now_ms + 30 * 60 * 1000)
    nodes = {key: sorted(n for n, _ in bound) for key, bound in sim.cluster.placements.items()}
    assert nodes["ns/hold-a"] == ["h1"] and nodes["ns/hold-b"] == ["h3"]
    assert nodes["ns/in-rack"] == ["h5", "h6"]  # one rack (r3): no host takes 2 pods
    assert nodes["ns/in-block"] == ["h2", "h4"]  # one block (b1): no rack takes 2
    assert nodes["ns/spread"] == ["h7", "h8"]  # no block takes 2: over b2 and b3
    too_big = {f"{w['metadata']['namespace']}/{w['metadata']['name']}": w for w in sim.workloads()}
    waiting = too_big["ns/too-big"]
    assert not is_admitted(waiting) and "ns/too-big" not in nodes
    message = condition(waiting, "QuotaReserved")["message"]
    assert 'topology "b200" doesn\'t allow to fit any of 1 pod(s)' in message


def test_a_placed_topology_pod_set_carries_its_topology_assignment():
    """v1beta2's shape: the Topology's levels and a slice per node with its pod count."""
    result = run("topology_preferred.yaml", until="30m")
    (psa,) = result["ns/in-rack"]["status"]["admission"]["podSetAssignments"]
    levels = ["example.com/block", "example.com/rack", "kubernetes.io/hostname"]
    one_pod = {"domainCount": 1, "podCounts": {"universal": 1}}
    # in-rack went to rack r3 of block b2: one pod on h5, one on h6.
    assert psa["topologyAssignment"] == {
        "levels": levels,
        "slices": [
            {**one_pod, "valuesPerLevel": [{"universal": v} for v in ("b2", "r3", "h5")]},
            {**one_pod, "valuesPerLevel": [{"universal": v} for v in ("b2", "r3", "h6")]},
        ],
    }
    (pinned,) = result["ns/hold-a"]["status"]["admission"]["podSetAssignments"]
    assert "topologyAssignment" not in pinned  # no topology request
