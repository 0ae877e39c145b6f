"""Every figure the reports, the what-if and a job's quote show, named and defined once.

Pages link to ``/reports/glossary/#<anchor>``; the definitions follow the code in
``apps/reports/compute/``, ``apps/whatif/replay/metrics.py`` and
``apps/jobs/preemption_risk.py``.
"""

from __future__ import annotations

from typing import NamedTuple


class Term(NamedTuple):
    anchor: str
    name: str
    definition: str
    shown_on: str


TERMS = (
    Term("wait", "Wait",
         "Time from a workload's creation (or its requeue after an eviction) to its admission by "
         "Kueue. Percentiles (p50, p90, p95, p99) are exact, computed from every recorded admission.",
         "weekly report, trend, what-if"),
    Term("starvation", "Starvation",
         "The longest completed wait of a queue in the week, and the age of its oldest workload "
         "still pending at the week's end.", "weekly report"),
    Term("entitled-share", "Entitled share",
         "A team's nominal GPUs divided by all teams' nominal GPUs.", "weekly report, what-if"),
    Term("received-share", "Received share",
         "A team's GPU-hours of admitted workloads divided by all teams' GPU-hours in the period.",
         "weekly report, what-if"),
    Term("borrowed", "Borrowed / lent GPU-hours",
         "Borrowed: GPU-hours a queue used above its nominal quota, from its cohort. Lent: the "
         "share of a queue's idle lendable quota that borrowers used, in proportion to what each "
         "lender had idle.", "weekly report, live queues"),
    Term("drs", "Dominant resource share (DRS)",
         "The largest, over flavors, of a team's GPU-hours on the flavor divided by that flavor's "
         "capacity × hours in the period.", "weekly report"),
    Term("utilisation", "Utilisation",
         "Busy GPU-hours divided by allocated GPU-hours that DCGM measured: how much of what a team "
         "held was actually computing. Only the weekly report shows it.", "weekly report"),
    Term("capacity-share", "Capacity share",
         "A team's GPU-hours divided by the cluster's GPU capacity × hours in the replayed period: "
         "how much of the cluster it held, busy or not.", "what-if"),
    Term("idle-reserved-cost", "Idle reserved cost",
         "For each flavor, nominal GPUs × hours covered minus GPU-hours used, never below zero, "
         "times the flavor's price: what a team's guaranteed quota cost while unused. A what-if "
         "counts it over the replayed period under each policy, from the replay's GPU-hours.",
         "weekly report, what-if"),
    Term("preemption-loss-cost", "Cost of GPU-hours lost to preemption",
         "GPU-hours lost to preemption (as defined above) on a flavor times the flavor's price: "
         "the work a replay threw away, in dollars, under each policy.", "what-if"),
    Term("borrowed-cost", "Cost of borrowed GPU-hours",
         "Borrowed GPU-hours (GPU-hours a queue ran above its nominal quota on a flavor, summed "
         "over time) times the flavor's price, under each policy of a what-if.", "what-if"),
    Term("whatif-cost", "Cost (what-if)",
         "Idle reserved cost + cost of GPU-hours lost to preemption + cost of borrowed GPU-hours, "
         "per team, now and with the draft. A flavor without a price (from OpenCost or the price "
         "table) shows \"no price\" and is left out of every sum, which names it.", "what-if"),
    Term("lost-gpu-hours", "GPU-hours lost to preemption",
         "For each eviction, GPUs × the time since the workload's last checkpoint (or since its "
         "admission when it reported none).", "weekly report, trend, what-if"),
    Term("fragmentation", "Fragmented GPU-hours",
         "GPU-hours free on a flavor while a pod that would have fit in them could not be "
         "scheduled. Blocked demand: the GPU-hours those pods asked for.", "weekly report"),
    Term("noise", "Noise band (what-if)",
         "How far a replay of the unchanged policy is from what was recorded, per team; a change of "
         "wait within it is reported as within noise.", "what-if"),
    Term("preemption-risk", "Preemption risk (quote)",
         "Who could preempt a quoted job once it runs, by its queue's and its cohort's Kueue "
         "preemption settings, and the chance of at least one preemption over its expected run "
         "time: 1 − exp(−rate × hours), where the rate is the recorded preemptions of batch jobs "
         "of its priority tier divided by the hours they were admitted, over the last 28 days. "
         "None when the tier has no admitted hours; 0 when nobody may preempt it.",
         "job form's Check, quotes API, manage.py quote"),
)  # fmt: skip
