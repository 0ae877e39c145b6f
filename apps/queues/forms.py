"""The queue edit form: scalar settings plus a flavor × resource quota grid.

The form only parses HTML input into the same proposal dict the API accepts;
every rule is checked by the services.
"""

from __future__ import annotations

from django import forms

from apps.queues.choices import (
    BorrowWithinCohort,
    QueueingStrategy,
    ReclaimWithinCohort,
    StopPolicy,
    WithinClusterQueue,
)
from apps.queues.models import Cohort, FlavorCapacity
from apps.queues.snapshots import PREEMPTION_FIELDS, QUOTA_FIELDS

SEP = "|"
CLUSTER_QUEUE_DOCS = "https://kueue.sigs.k8s.io/docs/concepts/cluster_queue/"
# One line per Kueue field of the form, with the Kueue doc section that explains it.
KUEUE_HELP = {
    "cohort": (
        "ClusterQueues of one cohort lend each other idle quota.",
        f"{CLUSTER_QUEUE_DOCS}#cohort",
    ),
    "fair_weight": (
        "Share of the cohort's idle quota relative to the other queues (fairSharing.weight).",
        "https://kueue.sigs.k8s.io/docs/concepts/fair_sharing/",
    ),
    "queueing_strategy": (
        "StrictFIFO keeps order even when the head does not fit; BestEffortFIFO lets smaller "
        "workloads pass it.",
        f"{CLUSTER_QUEUE_DOCS}#queueing-strategy",
    ),
    "stop_policy": (
        "Hold stops admitting; HoldAndDrain also evicts what is admitted.",
        f"{CLUSTER_QUEUE_DOCS}#stoppolicy",
    ),
    "fair_between_users": (
        "Team queues only: each member gets a LocalQueue of their own, and Kueue admits the "
        "member with the least recent usage first (AdmissionFairSharing).",
        "https://kueue.sigs.k8s.io/docs/concepts/admission_fair_sharing/",
    ),
    "reclaim_within_cohort": (
        "Whether workloads may preempt others of the cohort that borrow this queue's quota.",
        f"{CLUSTER_QUEUE_DOCS}#preemption",
    ),
    "within_cluster_queue": (
        "Whether a workload may preempt lower-priority ones of this same queue.",
        f"{CLUSTER_QUEUE_DOCS}#preemption",
    ),
    "borrow_within_cohort": (
        "Whether a workload that borrows may preempt lower-priority ones elsewhere in the cohort.",
        f"{CLUSTER_QUEUE_DOCS}#preemption",
    ),
    "borrow_max_priority_threshold": (
        "Only workloads at or below this priority may be preempted while borrowing.",
        f"{CLUSTER_QUEUE_DOCS}#preemption",
    ),
    "nominal": (
        "Guaranteed quota (nominalQuota); all queues' and the notebook pool's together fit "
        "the flavor's capacity.",
        f"{CLUSTER_QUEUE_DOCS}#flavors-and-resources",
    ),
    "borrowing_limit": (
        "Most this queue may borrow from its cohort on top of nominal; empty = unlimited.",
        f"{CLUSTER_QUEUE_DOCS}#borrowinglimit",
    ),
    "lending_limit": (
        "Most of its idle nominal quota the cohort may borrow; empty = all of it.",
        f"{CLUSTER_QUEUE_DOCS}#lendinglimit",
    ),
    "order": (
        "Kueue tries flavors in this order for each workload.",
        f"{CLUSTER_QUEUE_DOCS}#flavors-and-resources",
    ),
}


def quota_field(flavor: str, resource: str, part: str) -> str:
    return SEP.join(("q", flavor, resource, part))


def order_field(flavor: str) -> str:
    return SEP.join(("order", flavor))


class QueuePolicyForm(forms.Form):
    version = forms.IntegerField(widget=forms.HiddenInput)
    cohort = forms.ChoiceField(required=False)
    fair_weight = forms.CharField(label="Fair-sharing weight")
    queueing_strategy = forms.ChoiceField(choices=QueueingStrategy.choices)
    stop_policy = forms.ChoiceField(choices=StopPolicy.choices)
    fair_between_users = forms.BooleanField(required=False, label="Fair between users")
    reclaim_within_cohort = forms.ChoiceField(choices=ReclaimWithinCohort.choices)
    within_cluster_queue = forms.ChoiceField(choices=WithinClusterQueue.choices)
    borrow_within_cohort = forms.ChoiceField(choices=BorrowWithinCohort.choices)
    borrow_max_priority_threshold = forms.IntegerField(required=False)
    reason = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}))
    capacity_override_reason = forms.CharField(
        required=False, widget=forms.Textarea(attrs={"rows": 2})
    )

    def __init__(self, *args, grid: list[tuple[str, list[str]]], cohorts: list[str], **kwargs):
        super().__init__(*args, **kwargs)
        self.grid = grid
        self.fields["cohort"].choices = [("", "— none (standalone) —")] + [(c, c) for c in cohorts]
        for position, (flavor, resources) in enumerate(grid):
            self.fields[order_field(flavor)] = forms.IntegerField(initial=position, required=False)
            for resource in resources:
                for part in QUOTA_FIELDS:
                    self.fields[quota_field(flavor, resource, part)] = forms.CharField(
                        required=False
                    )

    @property
    def kueue_help(self) -> dict[str, dict[str, str]]:
        """Field → {text, url} for the template's one-line help."""
        return {name: {"text": text, "url": url} for name, (text, url) in KUEUE_HELP.items()}

    @staticmethod
    def initial_from(snapshot: dict) -> dict:
        initial = {
            k: snapshot[k]
            for k in (
                "version",
                "fair_weight",
                "queueing_strategy",
                "stop_policy",
                "fair_between_users",
            )
        }
        initial["cohort"] = snapshot["cohort"] or ""
        initial.update(snapshot["preemption"])
        for position, flavor in enumerate(dict.fromkeys(q["flavor"] for q in snapshot["quotas"])):
            initial[order_field(flavor)] = position
        for quota in snapshot["quotas"]:
            for part in QUOTA_FIELDS:
                initial[quota_field(quota["flavor"], quota["resource"], part)] = quota[part] or ""
        return initial

    def proposal(self) -> dict:
        data = self.cleaned_data
        return {
            "cohort": data["cohort"] or None,
            "fair_weight": data["fair_weight"],
            "queueing_strategy": data["queueing_strategy"],
            "stop_policy": data["stop_policy"],
            "fair_between_users": data["fair_between_users"],
            "preemption": {f: data.get(f) for f in PREEMPTION_FIELDS},
            "quotas": self._quotas(),
        }

    def _quotas(self) -> list[dict]:
        data = self.cleaned_data
        ordered = sorted(
            enumerate(self.grid),
            key=lambda item: (_order(data.get(order_field(item[1][0]))), item[0]),
        )
        quotas = []
        for _, (flavor, resources) in ordered:
            for resource in resources:
                values = {
                    p: (data.get(quota_field(flavor, resource, p)) or "").strip()
                    for p in QUOTA_FIELDS
                }
                if values["nominal"] or values["borrowing_limit"] or values["lending_limit"]:
                    quotas.append({"flavor": flavor, "resource": resource, **values})
        return quotas

    def quota_rows(self) -> list[dict]:
        """Bound fields of the quota grid, one row per flavor × resource, for the template."""
        rows = []
        for flavor, resources in self.grid:
            for index, resource in enumerate(resources):
                row = {"flavor": flavor, "resource": resource, "first": index == 0}
                row["order"] = self[order_field(flavor)]
                row.update({p: self[quota_field(flavor, resource, p)] for p in QUOTA_FIELDS})
                rows.append(row)
        return rows

    def field_for_error(self, path: str, proposal: dict) -> str | None:
        """Map an API error path (``quotas[2].nominal``) back to the form field name."""
        if path.startswith("quotas[") and "]." in path:
            index, part = path[len("quotas[") :].split("].", 1)
            quota = proposal["quotas"][int(index)]
            return quota_field(quota["flavor"], quota["resource"], part)
        name = path.removeprefix("preemption.")
        return name if name in self.fields else None


def edit_form_options(snapshot: dict) -> dict:
    """The grid and cohorts a queue's edit form offers (its page and what-if's alike):
    every flavor × resource with capacity, the flavors the queue uses first."""
    grid: dict[str, list[str]] = {}
    for capacity in FlavorCapacity.objects.select_related("flavor").order_by(
        "flavor__name", "resource"
    ):
        grid.setdefault(capacity.flavor.name, []).append(capacity.resource)
    used = list(dict.fromkeys(q["flavor"] for q in snapshot["quotas"]))
    ordered = [(f, grid[f]) for f in used if f in grid]
    ordered += [(f, r) for f, r in grid.items() if f not in used]
    return {"grid": ordered, "cohorts": list(Cohort.objects.values_list("name", flat=True))}


def _order(value) -> int:
    return value if isinstance(value, int) else 10_000
