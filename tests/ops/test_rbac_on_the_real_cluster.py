"""The deployed ClusterRole against the real API server's authorizer.

Every real-cluster test runs the portal under its ServiceAccount, bound to the
ClusterRole in ``deploy/``; the API server's audit log keeps each of its requests.
After that tier: nothing it asked for was forbidden, and (when the whole suite ran)
every permission the role grants was used at least once.
"""

from __future__ import annotations

import pytest
import yaml

from testkit.real_cluster import DEPLOY, PORTAL_USER
from testkit.tiers import REAL_TIER_COMPLETE

Permission = tuple[str, str, str]  # (API group, resource[/subresource], verb)


def granted(role: dict) -> set[Permission]:
    return {
        (group, resource, verb)
        for rule in role["rules"]
        for group in rule["apiGroups"]
        for resource in rule["resources"]
        for verb in rule["verbs"]
    }


def used(event: dict) -> Permission:
    ref = event.get("objectRef") or {}
    resource = ref.get("resource", "")
    if ref.get("subresource"):
        resource += "/" + ref["subresource"]
    return ref.get("apiGroup", ""), resource, event["verb"]


def portal_requests(real_control_plane) -> list[dict]:
    plane, _ = real_control_plane
    requests = [e for e in plane.requests_by(PORTAL_USER) if e.get("stage") != "ResponseStarted"]
    if not requests:
        pytest.skip("no real-cluster test ran the portal in this session")
    return requests


def denied_by_rbac(event: dict) -> bool:
    # The authorizer's verdict, not the status code: a namespace being deleted also
    # answers 403, to requests RBAC allowed.
    return (event.get("annotations") or {}).get("authorization.k8s.io/decision") == "forbid"


@pytest.mark.after_real_tier
def test_nothing_the_portal_asked_the_real_api_server_for_was_forbidden(real_control_plane):
    requests = portal_requests(real_control_plane)
    assert any(e.get("annotations", {}).get("authorization.k8s.io/decision") for e in requests)
    assert sorted({used(e) for e in requests if denied_by_rbac(e)}) == []


@pytest.mark.after_real_tier
def test_the_cluster_role_grants_nothing_the_portal_did_not_use(real_control_plane, request):
    requests = portal_requests(real_control_plane)
    role = yaml.safe_load((DEPLOY / "clusterrole.yaml").read_text())
    unused = sorted(granted(role) - {used(e) for e in requests})
    if not request.config.stash.get(REAL_TIER_COMPLETE, False):
        pytest.skip(f"only a run of the whole suite uses every permission; unused here: {unused}")
    assert unused == []
