"""Pure status derivations: headroom from ClusterQueue status, preemption history."""

from decimal import Decimal

from prometheus_client import REGISTRY

from apps.jobs import status as st


def cq(name, nominal, used, borrowed="0", cohort="research", lending=None, borrowing=None):
    resource = {"name": "nvidia.com/gpu", "nominalQuota": nominal}
    if lending is not None:
        resource["lendingLimit"] = lending
    if borrowing is not None:
        resource["borrowingLimit"] = borrowing
    usage = [
        {
            "name": "h100",
            "resources": [{"name": "nvidia.com/gpu", "total": used, "borrowed": borrowed}],
        }
    ]
    return {
        "metadata": {"name": name},
        "spec": {
            "cohortName": cohort,
            "resourceGroups": [
                {
                    "coveredResources": ["nvidia.com/gpu"],
                    "flavors": [{"name": "h100", "resources": [resource]}],
                }
            ],
        },
        "status": {"flavorsUsage": usage},
    }


def test_headroom_counts_free_quota_and_what_the_cohort_can_lend():
    mine, other = cq("vision", "16", "16"), cq("nlp", "16", "4", lending="8")
    room = st.headroom(mine, [mine, other], "h100", "nvidia.com/gpu")
    assert room == st.Headroom(Decimal(0), Decimal(8))


def test_borrowing_already_done_and_the_borrowing_limit_count():
    mine = cq("vision", "16", "20", borrowed="4", borrowing="6")
    other = cq("nlp", "16", "0")
    room = st.headroom(mine, [mine, other], "h100", "nvidia.com/gpu")
    assert room == st.Headroom(Decimal(0), Decimal(2))


def _unreadable_count() -> float:
    labels = {"reader": "job_status"}
    return REGISTRY.get_sample_value("qm_unreadable_quantities_total", labels) or 0.0


def test_a_quantity_it_cannot_read_leaves_headroom_unknown_not_zero(caplog):
    mine, other = cq("vision", "16", "16"), cq("nlp", "abc", "4")
    before = _unreadable_count()
    assert st.headroom(mine, [mine, other], "h100", "nvidia.com/gpu") is None
    assert _unreadable_count() == before + 1
    assert "ClusterQueue nlp spec h100/nvidia.com/gpu nominalQuota" in caplog.text
    pending = {"metadata": {"name": "wl"}, "spec": {"queueName": "vision"}}
    need = st.Need("h100", "nvidia.com/gpu", 2)
    assert st.pending_reason(pending, [], [mine, other], need) == (
        "waiting for quota in vision: needs 2 nvidia.com/gpu on h100 "
        "(free quota unknown: the queue reports a quantity the portal cannot read)"
    )


def test_a_preemption_names_the_preemptor_and_its_reason():
    preemptor = {
        "metadata": {
            "name": "job-llm-1",
            "namespace": "team-nlp",
            "uid": "u-1",
            "ownerReferences": [{"kind": "Job", "name": "llm-pretrain"}],
        }
    }
    victim = {
        "metadata": {"name": "job-a", "namespace": "team-vision"},
        "status": {
            "conditions": [
                {
                    "type": "Evicted",
                    "status": "True",
                    "reason": "Preempted",
                    "lastTransitionTime": "2026-01-05T14:02:00Z",
                    "message": "Preempted to accommodate",
                },
                {
                    "type": "Preempted",
                    "status": "True",
                    "reason": "InCohortReclamation",
                    "lastTransitionTime": "2026-01-05T14:02:00Z",
                    "message": "Preempted to accommodate a workload (UID: u-1, JobUID: j) due to reclamation",
                },
            ]
        },
    }
    (entry,) = st.history(victim, {"u-1": preemptor})
    assert entry.kind == "preempted"
    assert entry.reason == "InCohortReclamation"
    assert entry.preemptor == "team-nlp/llm-pretrain"
    assert entry.at.hour == 14 and entry.at.minute == 2


def test_kube_schedulers_insufficient_resource_reads_as_plain_words():
    from apps.jobs.status import Need, plain_unschedulable

    need = Need(flavor="h100", resource="nvidia.com/gpu", amount=8)
    # As kube-scheduler 1.35 words it after stripping "0/2 nodes are available: ".
    real = (
        "2 Insufficient nvidia.com/gpu. no new claims to deallocate, preemption: 0/2 nodes "
        "are available: 2 No preemption victims found for incoming pod"
    )
    assert plain_unschedulable(real, need) == "no node has 8 free nvidia.com/gpu"
    assert plain_unschedulable("1 Insufficient cpu, 1 Insufficient nvidia.com/gpu", need) == (
        "no node has enough free cpu"
    )
    other = "2 node(s) didn't match Pod's node affinity/selector"
    assert plain_unschedulable(other, need) == other
