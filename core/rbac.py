"""Every Kubernetes API call the portal makes, declared: (group, resource, verbs) per module.

This table is the single source of the portal's ClusterRole: ``deploy/kustomize``
carries its rendering (``python -m core.rbac > deploy/kustomize/base/clusterrole.yaml``),
``core.kube.KubeClient`` refuses a call that is not declared here (so a new call
fails loudly in tests instead of with a 403 in production), and
``tests/ops/test_rbac.py`` scans the code to check the table lists what the code
calls and nothing more.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from dataclasses import dataclass

import yaml

KUEUE = "kueue.x-k8s.io"
KUEUE_VISIBILITY = f"visibility.{KUEUE}"
CLUSTER_ROLE = "quartermaster"
VERB_ORDER = ("get", "list", "watch", "create", "update", "patch", "delete")


@dataclass(frozen=True)
class Use:
    """``module`` calls ``verbs`` on ``resource`` (``plural`` or ``plural/subresource``)."""

    module: str
    group: str
    resource: str
    verbs: tuple[str, ...]
    why: str


_RECONCILE_KINDS = ("resourceflavors", "cohorts", "workloadpriorityclasses")
_QUEUE_KINDS = ("clusterqueues", "localqueues")
# A Topology is created and deleted but never patched: Kueue keeps its levels fixed,
# and the plan blocks every other difference (apps.queues.reconcile.plan.IMMUTABLE).
TOPOLOGIES = "topologies"

USES: tuple[Use, ...] = (
    # --- apps.queues: the Kueue reconciler and the brownfield import ---------------
    Use(
        "apps.queues.reconcile.observe",
        "",
        "namespaces",
        ("list",),
        "read team namespaces to diff labels",
    ),
    Use(
        "apps.queues.reconcile.observe",
        "",
        "persistentvolumeclaims",
        ("list",),
        "read team checkpoint volumes to diff them",
    ),
    *(
        Use("apps.queues.reconcile.observe", KUEUE, kind, ("list",), "read managed objects")
        for kind in (TOPOLOGIES, *_RECONCILE_KINDS, *_QUEUE_KINDS)
    ),
    Use(
        "apps.queues.reconcile.observe",
        KUEUE,
        "workloads",
        ("list",),
        "count admitted workloads before deleting a queue",
    ),
    *(
        Use("apps.queues.reconcile.incremental", KUEUE, kind, ("get",), "fast path after a commit")
        for kind in _QUEUE_KINDS
    ),
    Use(
        "apps.queues.reconcile.incremental",
        "",
        "namespaces",
        ("get",),
        "fast path: only write LocalQueues in namespaces that are ours",
    ),
    *(
        Use(
            "apps.queues.reconcile.apply",
            KUEUE,
            kind,
            ("get",),
            "re-read a queue after a 409 (Kueue writes its status)",
        )
        for kind in _QUEUE_KINDS
    ),
    Use(
        "apps.queues.reconcile.apply",
        "",
        "namespaces",
        ("create", "patch"),
        "create team namespaces, set or release our labels (never delete)",
    ),
    Use(
        "apps.queues.reconcile.apply",
        "",
        "persistentvolumeclaims",
        ("create", "patch"),
        "create team checkpoint volumes, set or release our labels (never delete)",
    ),
    *(
        Use(
            "apps.queues.reconcile.apply",
            KUEUE,
            kind,
            ("create", "patch", "delete"),
            "converge objects on the policy",
        )
        for kind in (*_RECONCILE_KINDS, *_QUEUE_KINDS)
    ),
    Use(
        "apps.queues.reconcile.apply",
        KUEUE,
        TOPOLOGIES,
        ("create", "delete"),
        "a flavor's topology levels (Kueue TAS)",
    ),
    Use(
        "apps.queues.reconcile.dry_run",
        KUEUE,
        "clusterqueues",
        ("create", "patch"),
        "dry-run a suggested ClusterQueue (dryRun=All: judged by the webhooks, never stored)",
    ),
    *(
        Use("apps.queues.reconcile.importer", KUEUE, kind, ("list",), "brownfield import")
        for kind in (*_RECONCILE_KINDS, *_QUEUE_KINDS)
    ),
    *(
        Use(
            "apps.queues.reconcile.importer",
            KUEUE,
            kind,
            ("patch",),
            "take ownership (add our label)",
        )
        for kind in (*_RECONCILE_KINDS, *_QUEUE_KINDS)
    ),
    # --- apps.reports: the admission history recorder ---------------------------------
    Use(
        "apps.reports.recorder",
        KUEUE,
        "workloads",
        ("list", "watch"),
        "record every Workload transition (list, then watch with resume)",
    ),
    Use(
        "apps.reports.recorder",
        "",
        "events",
        ("list",),
        "rebuild what happened while the recorder was down from Kueue's Events on Workloads",
    ),
    Use(
        "apps.reports.catchup",
        KUEUE,
        "workloads",
        ("list",),
        "wait until the recorder has caught up with the Workloads listed now (demo start)",
    ),
    # --- apps.whatif: start-time predictions from the cluster's current state --------
    *(
        Use(
            "apps.whatif.start_predictions",
            KUEUE,
            kind,
            ("list",),
            "current queues and workloads for ETAs",
        )
        for kind in (TOPOLOGIES, *_RECONCILE_KINDS, *_QUEUE_KINDS, "workloads")
    ),
    Use(
        "apps.whatif.start_predictions",
        "",
        "namespaces",
        ("list",),
        "the policy objects the reconciler reads",
    ),
    # --- apps.jobs: a quote runs the admission model on the cluster's current state ---
    *(
        Use(
            "apps.jobs.services.quotes",
            KUEUE,
            kind,
            ("list",),
            "current queues and workloads for a quote",
        )
        for kind in (TOPOLOGIES, *_RECONCILE_KINDS, *_QUEUE_KINDS, "workloads")
    ),
    Use(
        "apps.jobs.services.quotes",
        "",
        "namespaces",
        ("list",),
        "the policy objects the reconciler reads",
    ),
    # --- apps.jobs: notebooks (StatefulSet + Service) and batch Jobs ----------------
    *(
        Use("apps.jobs.cluster", group, resource, ("create", "delete"), "start and stop")
        for group, resource in (("apps", "statefulsets"), ("", "services"), ("batch", "jobs"))
    ),
    *(
        Use("apps.jobs.cluster", group, resource, ("list",), "status of notebooks and jobs")
        for group, resource in (
            ("apps", "statefulsets"),
            ("batch", "jobs"),
            ("", "pods"),
            (KUEUE, "workloads"),
            (KUEUE, "clusterqueues"),
        )
    ),
    *(
        Use(
            "apps.jobs.watch",
            group,
            resource,
            ("list", "watch"),
            "follow notebook and job status (list, then watch with resume)",
        )
        for group, resource in (
            ("apps", "statefulsets"),
            ("batch", "jobs"),
            ("", "pods"),
            (KUEUE, "workloads"),
        )
    ),
    # --- apps.live: live queue and workload views (one cached snapshot for all viewers) ---
    *(
        Use("apps.live.fetch", KUEUE, kind, ("list",), "live queue view: quota use and workloads")
        for kind in (*_QUEUE_KINDS, "workloads")
    ),
    Use("apps.live.fetch", KUEUE, "workloads", ("get",), "a workload newer than the snapshot"),
    *(
        Use("apps.live.fetch", "", kind, ("list",), "free GPUs per topology domain")
        for kind in ("nodes", "pods")
    ),
    Use(
        "apps.live.fetch",
        "",
        "events",
        ("list",),
        "a workload's Events, and Kueue's Preempted Events that name preemptors",
    ),
    Use(
        "apps.jobs.cluster",
        KUEUE_VISIBILITY,
        "clusterqueues/pendingworkloads",
        ("get",),
        "positions of waiting workloads in each ClusterQueue (live views, a quote's forward run)",
    ),
    Use(
        "apps.jobs.cluster",
        KUEUE_VISIBILITY,
        "localqueues/pendingworkloads",
        ("get",),
        "queue position of pending notebooks and jobs",
    ),
)


def allowed() -> frozenset[tuple[str, str, str]]:
    """Every (group, resource, verb) any module may use."""
    return frozenset((u.group, u.resource, verb) for u in USES for verb in u.verbs)


def is_allowed(group: str, resource: str, verb: str) -> bool:
    return (group, resource, verb) in _ALLOWED


_ALLOWED = allowed()


def cluster_role_rules() -> list[dict]:
    """The ClusterRole's rules: one rule per (group, verb set), resources sorted."""
    verbs_by_resource: dict[tuple[str, str], set[str]] = defaultdict(set)
    for group, resource, verb in _ALLOWED:
        verbs_by_resource[(group, resource)].add(verb)
    grouped: dict[tuple[str, tuple[str, ...]], list[str]] = defaultdict(list)
    for (group, resource), verbs in verbs_by_resource.items():
        ordered = tuple(v for v in VERB_ORDER if v in verbs)
        grouped[(group, ordered)].append(resource)
    return [
        {"apiGroups": [group], "resources": sorted(resources), "verbs": list(verbs)}
        for (group, verbs), resources in sorted(grouped.items())
    ]


def cluster_role() -> dict:
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": {"name": CLUSTER_ROLE, "labels": {"app.kubernetes.io/name": "quartermaster"}},
        "rules": cluster_role_rules(),
    }


def render() -> str:
    header = "# Generated by `python -m core.rbac` from core/rbac.py. Do not edit.\n"
    return header + yaml.safe_dump(cluster_role(), sort_keys=False)


if __name__ == "__main__":
    sys.stdout.write(render())
