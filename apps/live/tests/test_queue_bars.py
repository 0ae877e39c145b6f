"""The "Queues now" bars and the rows no queue can use, on a small state worked by hand.

Cohort research: vision has h100 16 (uses 20, so borrows 4), a100 8 (uses 0) and MIG
slices with nominal 0 and borrowingLimit 0; nlp has h100 8 (uses 2) and a100 with
nominal 0 that nobody in any cohort lends... except vision's a100 8, so nlp could
borrow it. A queue outside any cohort (solo) lists l40 with nominal 0: it can never
borrow. One vision workload waits for 2 pods × 8 GPUs.
"""

from apps.live import charts, compute

GPU = "nvidia.com/gpu"
MIG = "nvidia.com/mig-1g.10gb"


def resource(name, nominal, *, borrowing=None):
    found = {"name": name, "nominalQuota": nominal}
    if borrowing is not None:
        found["borrowingLimit"] = borrowing
    return found


def cluster_queue(name, cohort, flavors, usage):
    """``flavors``: flavor → resources; ``usage``: flavor → {resource: (total, borrowed)}."""
    spec = {
        "resourceGroups": [{"flavors": [{"name": f, "resources": r} for f, r in flavors.items()]}]
    }
    if cohort:
        spec["cohortName"] = cohort
    reserved = [
        {"name": f, "resources": [{"name": r, "total": t, "borrowed": b} for r, (t, b) in use.items()]}
        for f, use in usage.items()
    ]  # fmt: skip
    return {"metadata": {"name": name}, "spec": spec, "status": {"flavorsReservation": reserved}}


QUEUES = [
    cluster_queue(
        "vision", "research",
        {"h100": [resource(GPU, "16")], "a100": [resource(GPU, "8")],
         "mig": [resource(MIG, "0", borrowing="0")]},
        {"h100": {GPU: ("20", "4")}},
    ),
    cluster_queue(
        "nlp", "research",
        {"h100": [resource(GPU, "8")], "a100": [resource(GPU, "0")]},
        {"h100": {GPU: ("2", "0")}},
    ),
    cluster_queue("solo", "", {"l40": [resource(GPU, "0")]}, {}),
]  # fmt: skip
LOCAL_QUEUES = [{"metadata": {"namespace": "team-vision", "name": "vision"},
                 "spec": {"clusterQueue": "vision"}}]  # fmt: skip
WAITING = {
    "metadata": {"namespace": "team-vision", "name": "wait", "uid": "u-wait",
                 "creationTimestamp": "2026-01-01T00:00:00Z"},
    "spec": {"queueName": "vision", "podSets": [{"name": "main", "count": 2, "template": {
        "spec": {"containers": [{"resources": {"requests": {GPU: "8"}}}]}}}]},
    "status": {"conditions": [{"type": "QuotaReserved", "status": "False", "reason": "Pending",
                               "message": "no room", "lastTransitionTime": "2026-01-01T00:01:00Z"}]},
}  # fmt: skip


def rows():
    return {r["name"]: r for r in compute.queue_rows(QUEUES, LOCAL_QUEUES, [WAITING], {})}


def test_rows_no_queue_can_use_are_hidden_from_the_table():
    shown = {
        name: [(f["flavor"], f["resource"]) for f in r["flavors"]] for name, r in rows().items()
    }
    # vision's MIG: nominal 0 and borrowingLimit 0; solo's l40: nominal 0, no cohort.
    # nlp's a100 stays: nominal 0, but vision lends its idle a100 8 to research.
    assert shown == {
        "vision": [("h100", GPU), ("a100", GPU)],
        "nlp": [("h100", GPU), ("a100", GPU)],
        "solo": [],
    }


def test_the_bars_carry_the_numbers_of_the_table():
    spec = charts.queue_bars(rows()["vision"])
    bars = {t["name"]: dict(zip(t["y"], t["x"], strict=True)) for t in spec["data"]}
    # h100: nominal 16, in use 20, borrowed 4; lent 0 (vision uses all of its own 16).
    # a100: nominal 8, nothing used, nobody borrows a100: lent 0.
    # waiting: 2 pods × 8 GPUs = 16, on a row of its own (no flavor until admitted).
    assert bars == {
        "nominal quota": {f"h100 · {GPU}": 16.0, f"a100 · {GPU}": 8.0},
        "in use": {f"h100 · {GPU}": 20.0, f"a100 · {GPU}": 0.0},
        "borrowed from the cohort": {f"h100 · {GPU}": 4.0, f"a100 · {GPU}": 0.0},
        "lent to the cohort": {f"h100 · {GPU}": 0.0, f"a100 · {GPU}": 0.0},
        "waiting (no flavor yet)": {f"waiting · {GPU}": 16.0},
    }
    assert spec["layout"]["xaxis"]["title"]["text"] == "GPUs (count)"
    # Every bar says what it is in words and has its own pattern: no colour needed.
    assert len({t["marker"]["pattern"]["shape"] for t in spec["data"]}) == 5
    assert spec["data"][0]["text"] == ["nominal quota: 16", "nominal quota: 8"]


def test_a_lender_shows_what_it_lends():
    """nlp: h100 8, uses 2 → 6 idle lendable; vision borrows 4 of research's h100 and
    vision itself has 0 idle, so nlp lends all 4."""
    bars = {t["name"]: t["x"] for t in charts.queue_bars(rows()["nlp"])["data"]}
    assert bars["lent to the cohort"] == [4.0, 0.0]
    assert bars["waiting (no flavor yet)"] == [0.0]  # nothing of nlp waits


def test_a_queue_with_no_usable_gpu_row_says_so():
    spec = charts.queue_bars(rows()["solo"])
    assert spec["data"] == []
    assert spec["layout"]["annotations"][0]["text"] == "No GPU quota in this queue."


def test_cpu_and_memory_get_figures_of_their_own_in_their_units():
    """train: flavor "cpu-pool" with cpu 64 and memory 512Gi of nominal quota, 40 cores
    and 256Gi in use, outside any cohort (nothing borrowed or lent); one workload waits
    for 2 pods × (4 cores, 32Gi) = 8 cores and 64Gi."""
    queue = cluster_queue(
        "train", "",
        {"cpu-pool": [resource("cpu", "64"), resource("memory", "512Gi")],
         "h100": [resource(GPU, "8")]},
        {"cpu-pool": {"cpu": ("40", "0"), "memory": ("256Gi", "0")}},
    )  # fmt: skip
    local = {"metadata": {"namespace": "team-train", "name": "train"},
             "spec": {"clusterQueue": "train"}}  # fmt: skip
    waiting = {
        "metadata": {"namespace": "team-train", "name": "wait", "uid": "u-cpu",
                     "creationTimestamp": "2026-01-01T00:00:00Z"},
        "spec": {"queueName": "train", "podSets": [{"name": "main", "count": 2, "template": {
            "spec": {"containers": [{"resources": {"requests": {"cpu": "4", "memory": "32Gi"}}}]}}}]},
    }  # fmt: skip
    row = compute.queue_rows([queue], [local], [waiting], {})[0]

    figures = charts.other_resource_bars(row)
    assert [f["resource"] for f in figures] == ["cpu", "memory"]
    cpu, memory = (
        {t["name"]: dict(zip(t["y"], t["x"], strict=True)) for t in f["chart"]["data"]}
        for f in figures
    )
    assert cpu == {
        "nominal quota": {"cpu-pool · cpu": 64.0},
        "in use": {"cpu-pool · cpu": 40.0},
        "borrowed from the cohort": {"cpu-pool · cpu": 0.0},
        "lent to the cohort": {"cpu-pool · cpu": 0.0},
        "waiting (no flavor yet)": {"waiting · cpu": 8.0},
    }
    # 512Gi = 512 GiB; 256Gi in use; 2 × 32Gi = 64 GiB waiting.
    assert memory == {
        "nominal quota": {"cpu-pool · memory": 512.0},
        "in use": {"cpu-pool · memory": 256.0},
        "borrowed from the cohort": {"cpu-pool · memory": 0.0},
        "lent to the cohort": {"cpu-pool · memory": 0.0},
        "waiting (no flavor yet)": {"waiting · memory": 64.0},
    }
    titles = [f["chart"]["layout"]["xaxis"]["title"]["text"] for f in figures]
    assert titles == ["CPU (cores)", "memory (GiB, 1 GiB = 2³⁰ bytes)"]
    # The GPUs keep their own figure: no core or byte on the GPU axis.
    gpu = {
        t["name"]: dict(zip(t["y"], t["x"], strict=True)) for t in charts.queue_bars(row)["data"]
    }
    assert gpu["nominal quota"] == {f"h100 · {GPU}": 8.0}
    assert gpu["waiting (no flavor yet)"] == {f"waiting · {GPU}": 0.0}  # it asks for no GPU


def test_a_gpu_only_queue_has_no_other_figures():
    assert charts.other_resource_bars(rows()["vision"]) == []
