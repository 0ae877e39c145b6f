"""Lists are read in pages: a busy cluster's Events or Workloads would otherwise come back
as one response of hundreds of megabytes. Every item arrives once, whatever the page size."""

from __future__ import annotations

import pytest

from apps.queues.reconcile.observe import ref
from core import kube
from core.observability import metrics

pytestmark = [pytest.mark.django_db, pytest.mark.both_clusters]

LABEL = "quartermaster.test/paging"


def _list_calls() -> float:
    counter = metrics.KUBE_REQUESTS.labels("kueue.x-k8s.io", "resourceflavors", "list", "200")
    return counter._value.get()


def test_a_list_longer_than_a_page_comes_back_whole_in_pages(cluster, monkeypatch):
    names = [f"paging-{n}" for n in range(7)]
    for name in names:
        cluster.create(
            {
                "apiVersion": "kueue.x-k8s.io/v1beta2",
                "kind": "ResourceFlavor",
                "metadata": {"name": name, "labels": {LABEL: "yes"}},
                "spec": {},
            }
        )
    monkeypatch.setattr(kube, "LIST_PAGE_SIZE", 3)
    before = _list_calls()
    with cluster.client() as client:
        items, version = client.list_with_version(
            ref("ResourceFlavor", "v1beta2"), label_selector=f"{LABEL}=yes"
        )
    assert sorted(item["metadata"]["name"] for item in items) == names
    assert _list_calls() - before == 3  # 3 + 3 + 1
    assert version
