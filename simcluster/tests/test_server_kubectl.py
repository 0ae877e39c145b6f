"""kubectl against the simulated cluster: discovery, apply, get, edit, patch, delete."""

from __future__ import annotations

import json
import textwrap

import yaml

MANIFESTS = textwrap.dedent(
    """
    apiVersion: kueue.x-k8s.io/v1beta2
    kind: ResourceFlavor
    metadata: {name: h100}
    spec: {nodeLabels: {gpu: h100}}
    ---
    apiVersion: kueue.x-k8s.io/v1beta2
    kind: ClusterQueue
    metadata: {name: team-a}
    spec:
      cohortName: research
      namespaceSelector: {}
      resourceGroups:
      - coveredResources: [nvidia.com/gpu]
        flavors:
        - name: h100
          resources:
          - {name: nvidia.com/gpu, nominalQuota: 8}
    ---
    apiVersion: v1
    kind: Namespace
    metadata: {name: team-a}
    ---
    apiVersion: kueue.x-k8s.io/v1beta2
    kind: LocalQueue
    metadata: {name: main, namespace: team-a}
    spec: {clusterQueue: team-a}
    ---
    apiVersion: v1
    kind: ConfigMap
    metadata: {name: settings, namespace: team-a}
    data: {mode: fast}
    """
)


def get_json(kubectl, *args: str) -> dict:
    result = kubectl("get", *args, "-o", "json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_api_resources_lists_kueue_kinds_with_short_names(kubectl):
    result = kubectl("api-resources", "--api-group=kueue.x-k8s.io", "-o", "wide")
    assert result.returncode == 0, result.stderr
    line = next(row for row in result.stdout.splitlines() if row.startswith("clusterqueues"))
    assert "cq" in line and "ClusterQueue" in line and "kueue.x-k8s.io/v1beta2" in line


def test_apply_creates_then_reports_unchanged(kubectl):
    first = kubectl("apply", "-f", "-", stdin=MANIFESTS)
    assert first.returncode == 0, first.stderr
    assert "clusterqueue.kueue.x-k8s.io/team-a created" in first.stdout
    second = kubectl("apply", "-f", "-", stdin=MANIFESTS)
    assert second.returncode == 0, second.stderr
    assert "clusterqueue.kueue.x-k8s.io/team-a unchanged" in second.stdout
    assert "configmap/settings unchanged" in second.stdout


def test_apply_updates_a_changed_manifest(kubectl):
    kubectl("apply", "-f", "-", stdin=MANIFESTS)
    changed = MANIFESTS.replace("nominalQuota: 8", "nominalQuota: 16").replace(
        "mode: fast", "mode: slow"
    )
    result = kubectl("apply", "-f", "-", stdin=changed)
    assert "clusterqueue.kueue.x-k8s.io/team-a configured" in result.stdout, result.stderr
    cq = get_json(kubectl, "cq", "team-a")
    assert cq["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["nominalQuota"] == 16
    assert cq["metadata"]["generation"] == 2
    assert get_json(kubectl, "-n", "team-a", "configmap", "settings")["data"] == {"mode": "slow"}


def test_get_uses_short_names_and_namespaces(kubectl):
    kubectl("apply", "-f", "-", stdin=MANIFESTS)
    result = kubectl("get", "lq", "-n", "team-a")
    assert result.returncode == 0, result.stderr
    assert "main" in result.stdout
    listed = get_json(kubectl, "rf")
    assert [item["metadata"]["name"] for item in listed["items"]] == ["h100"]


def test_edit_goes_through_an_editor(kubectl, tmp_path):
    kubectl("apply", "-f", "-", stdin=MANIFESTS)
    editor = tmp_path / "editor.sh"
    editor.write_text("#!/bin/sh\nsed -i 's/stopPolicy: None/stopPolicy: Hold/' \"$1\"\n")
    editor.chmod(0o755)
    result = kubectl("edit", "cq", "team-a", env={"KUBE_EDITOR": str(editor)})
    assert result.returncode == 0, result.stderr
    assert get_json(kubectl, "cq", "team-a")["spec"]["stopPolicy"] == "Hold"


def test_patch_merge_and_json(kubectl):
    kubectl("apply", "-f", "-", stdin=MANIFESTS)
    merge = kubectl("patch", "cq", "team-a", "--type=merge", "-p", '{"spec":{"stopPolicy":"Hold"}}')
    assert merge.returncode == 0, merge.stderr
    ops = '[{"op":"replace","path":"/spec/queueingStrategy","value":"StrictFIFO"}]'
    assert kubectl("patch", "cq", "team-a", "--type=json", "-p", ops).returncode == 0
    spec = get_json(kubectl, "cq", "team-a")["spec"]
    assert (spec["stopPolicy"], spec["queueingStrategy"]) == ("Hold", "StrictFIFO")


def test_strategic_patch_of_a_config_map(kubectl):
    kubectl("apply", "-f", "-", stdin=MANIFESTS)
    result = kubectl(
        "patch", "-n", "team-a", "configmap", "settings", "-p", '{"data":{"extra":"1"}}'
    )
    assert result.returncode == 0, result.stderr
    assert get_json(kubectl, "-n", "team-a", "cm", "settings")["data"] == {
        "mode": "fast",
        "extra": "1",
    }


def test_invalid_objects_are_rejected_with_the_field(kubectl):
    bad = MANIFESTS.replace("nominalQuota: 8", "nominalQuota: -8")
    result = kubectl("apply", "-f", "-", stdin=bad)
    assert result.returncode != 0
    assert "spec.resourceGroups[0].flavors[0].resources[0].nominalQuota" in result.stderr


def test_unknown_fields_fail_strict_validation(kubectl):
    bad = MANIFESTS.replace("cohortName: research", "cohortName: research\n  cohrt: typo")
    result = kubectl("apply", "-f", "-", stdin=bad)
    assert result.returncode != 0
    assert 'unknown field "spec.cohrt"' in result.stderr


def test_server_side_apply_and_conflicts(kubectl):
    cq = yaml.safe_load_all(MANIFESTS)
    manifest = yaml.safe_dump(next(doc for doc in cq if doc["kind"] == "ClusterQueue"))
    first = kubectl("apply", "--server-side", "--field-manager=portal", "-f", "-", stdin=manifest)
    assert first.returncode == 0, first.stderr
    rival = manifest.replace("nominalQuota: 8", "nominalQuota: 4")
    refused = kubectl("apply", "--server-side", "--field-manager=rival", "-f", "-", stdin=rival)
    assert refused.returncode != 0
    assert "conflict" in refused.stderr.lower() and "portal" in refused.stderr
    forced = kubectl(
        "apply",
        "--server-side",
        "--field-manager=rival",
        "--force-conflicts",
        "-f",
        "-",
        stdin=rival,
    )
    assert forced.returncode == 0, forced.stderr


def test_delete_waits_for_the_object_to_go(kubectl):
    kubectl("apply", "-f", "-", stdin=MANIFESTS)
    # Namespace deletion empties the namespace at once (no namespace controller
    # lag), so the later LocalQueue/ConfigMap deletes may find nothing.
    result = kubectl("delete", "-f", "-", "--timeout=20s", "--ignore-not-found", stdin=MANIFESTS)
    assert result.returncode == 0, result.stderr
    assert get_json(kubectl, "cq")["items"] == []
    assert "team-a" not in [ns["metadata"]["name"] for ns in get_json(kubectl, "ns")["items"]]


def test_dry_run_server_does_not_persist(kubectl):
    result = kubectl("apply", "--dry-run=server", "-f", "-", stdin=MANIFESTS.split("---")[0])
    assert result.returncode == 0, result.stderr
    assert get_json(kubectl, "rf")["items"] == []
