"""AdmissionFairSharing scenarios (seeds from ``AFS_FROM``): one ClusterQueue with
``admissionScope: UsageBasedAdmissionFairSharing`` and 2-3 LocalQueues (users) in the
scenario's namespace, run on a Kueue configured with realcluster's opt-in block
(1m half-life, 2 s samples, a GPU weighs 100). Quota (2-4 GPUs) is small against the
jobs, so most wait, and which LocalQueue goes next follows the users' recent usage.
No preemption and no cohort: the order of admissions is what is measured."""

from __future__ import annotations

from typing import Any

from .scenarios import KUEUE, PRIORITIES, _Maker


class AfsMaker(_Maker):
    def objects(self) -> list[dict[str, Any]]:
        rng = self.rng
        ns_meta = {"name": self.namespace, "labels": dict(self.labels)}
        namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": ns_meta}
        classes = sorted(rng.sample(PRIORITIES, 2), key=lambda p: p[1])
        cq = self.afs_queue("cq0", rng.choice([2, 4]))
        users = [self.user_queue(cq, f"u{i}") for i in range(rng.randint(2, 3))]
        objects = [namespace, self.flavor("f0"), *map(self.priority_class, classes), cq, *users]
        arrivals = sorted(rng.sample(range(0, 41, 2), rng.randint(6, 10)))
        for i, arrival in enumerate(arrivals):
            job = self.job(f"j{i:02d}", cq, rng.choice(classes)[0], arrival)
            job["spec"]["parallelism"] = job["spec"]["completions"] = 1
            user = rng.choice(users)["metadata"]["name"]
            job["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] = user
            objects.append(job)
        return objects

    def afs_queue(self, name: str, gpus: int) -> dict[str, Any]:
        cq = self.cluster_queue(name, ["f0"], [])
        cq["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["nominalQuota"] = gpus
        cq["spec"]["preemption"] = {"withinClusterQueue": "Never", "reclaimWithinCohort": "Never"}
        cq["spec"]["queueingStrategy"] = "BestEffortFIFO"
        cq["spec"]["admissionScope"] = {"admissionMode": "UsageBasedAdmissionFairSharing"}
        return cq

    def user_queue(self, cq: dict[str, Any], user: str) -> dict[str, Any]:
        meta = self.meta(user, namespaced=True)
        spec = {"clusterQueue": cq["metadata"]["name"]}
        return {"apiVersion": KUEUE, "kind": "LocalQueue", "metadata": meta, "spec": spec}
