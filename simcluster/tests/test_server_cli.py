"""``python -m simcluster``: serve as a subprocess, signals, snapshots, and ``run`` dispatch."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request

import pytest
from kubernetes import client, config

from simcluster.__main__ import main
from testkit.kube_objects import KUEUE, make_cq, make_lq
from testkit.paths import REPO
from testkit.sim_process import KUBECTL, ServerProcess
from testkit.waiting import wait_until


def custom_api(kubeconfig) -> client.CustomObjectsApi:
    return client.CustomObjectsApi(config.new_client_from_config(str(kubeconfig)))


def test_serve_prints_its_url_and_writes_a_usable_kubeconfig(sim_process):
    assert sim_process.url.startswith("http://127.0.0.1:")
    api = custom_api(sim_process.kubeconfig_path)
    api.create_cluster_custom_object(*KUEUE, "clusterqueues", make_cq("from-process"))
    assert (
        api.get_cluster_custom_object(*KUEUE, "clusterqueues", "from-process")["metadata"]["name"]
        == "from-process"
    )


def test_kubectl_reads_the_written_kubeconfig(sim_process, tmp_path):
    command = [
        KUBECTL,
        "--kubeconfig",
        str(sim_process.kubeconfig_path),
        "--cache-dir",
        str(tmp_path),
        "get",
        "ns",
        "-o",
        "name",
    ]
    result = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "namespace/default" in result.stdout.split()


def test_sigterm_stops_cleanly_and_saves_the_snapshot(tmp_path):
    snapshot = tmp_path / "state.json"
    server = ServerProcess(tmp_path, "--snapshot", str(snapshot))
    custom_api(server.kubeconfig_path).create_cluster_custom_object(
        *KUEUE, "clusterqueues", make_cq("kept")
    )
    assert server.stop() == 0
    saved = json.loads(snapshot.read_text())
    assert "kept" in [entry["object"]["metadata"]["name"] for entry in saved["objects"]]

    again = ServerProcess(tmp_path, "--snapshot", str(snapshot))
    try:
        restored = custom_api(again.kubeconfig_path).get_cluster_custom_object(
            *KUEUE, "clusterqueues", "kept"
        )
        assert restored["spec"]["cohortName"] == "all"
    finally:
        again.stop()


def test_the_snapshot_hook_saves_on_demand(tmp_path):
    snapshot = tmp_path / "state.json"
    server = ServerProcess(tmp_path, "--snapshot", str(snapshot), "--snapshot-interval", "3600")
    try:
        request = urllib.request.Request(f"{server.url}/simcluster/snapshot", method="POST")
        with urllib.request.urlopen(request, timeout=10) as response:
            assert response.status == 200
        assert json.loads(snapshot.read_text())["format"] == 1
    finally:
        server.stop()


def test_token_can_be_required_for_client_only_setups(tmp_path):
    server = ServerProcess(tmp_path, "--require-token")
    try:
        api = custom_api(server.kubeconfig_path)
        assert api.list_cluster_custom_object(*KUEUE, "clusterqueues")["items"] == []
        with pytest.raises(urllib.error.HTTPError) as caught:
            urllib.request.urlopen(
                f"{server.url}/apis/kueue.x-k8s.io/v1beta2/clusterqueues", timeout=10
            )
        assert caught.value.code == 401
    finally:
        server.stop()


def test_run_prints_the_workloads_the_scenario_ends_with(capsys):
    # Two workloads that each take the queue's whole quota: one is admitted at once,
    # the other stays pending for as long as the first runs (its run time is 1h, the
    # run stops after 10 minutes of virtual time).
    scenario = REPO / "kueuemodel" / "tests" / "scenarios" / "finish_then_next.yaml"
    assert main(["run", str(scenario), "--until", "10m"]) == 0
    listing = json.loads(capsys.readouterr().out)
    admitted = {
        item["metadata"]["name"]
        for item in listing["items"]
        if any(
            c["type"] == "Admitted" and c["status"] == "True"
            for c in item.get("status", {}).get("conditions", [])
        )
    }
    assert listing["kind"] == "List"
    assert admitted == {"first"}


def test_run_with_a_bad_flag_exits_2(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["run", "scenario.yaml", "--fast"])
    assert exit_.value.code == 2
    assert "unrecognized arguments: --fast" in capsys.readouterr().err


def test_unknown_commands_exit_2():
    result = subprocess.run(
        [sys.executable, "-m", "simcluster", "bogus"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 2


@pytest.mark.parametrize("fair_sharing", [True, False])
def test_fair_sharing_is_a_start_up_setting_of_its_kueue(tmp_path, fair_sharing):
    server = ServerProcess(tmp_path, *(["--fair-sharing"] if fair_sharing else []))
    try:
        api = custom_api(server.kubeconfig_path)
        api.create_cluster_custom_object(*KUEUE, "clusterqueues", make_cq("team-a"))

        def published():
            cq = api.get_cluster_custom_object(*KUEUE, "clusterqueues", "team-a")
            return cq.get("status", {}).get("conditions") and cq["status"]

        status = wait_until(published, timeout=15, interval=0.1)
        # Kueue reports a weighted share only when its Configuration enables fair sharing.
        assert ("fairSharing" in status) is fair_sharing
    finally:
        assert server.stop() == 0


@pytest.mark.parametrize("admission_fair_sharing", [True, False])
def test_admission_fair_sharing_is_a_start_up_setting_of_its_kueue(
    tmp_path, admission_fair_sharing
):
    flags = ["--admission-fair-sharing"] if admission_fair_sharing else []
    server = ServerProcess(tmp_path, *flags)
    try:
        api = custom_api(server.kubeconfig_path)
        scope = {"admissionMode": "UsageBasedAdmissionFairSharing"}
        api.create_cluster_custom_object(
            *KUEUE, "clusterqueues", make_cq("team-a", admissionScope=scope)
        )
        api.create_namespaced_custom_object(
            *KUEUE, "default", "localqueues", make_lq("alice", cluster_queue="team-a")
        )

        def published():
            lq = api.get_namespaced_custom_object(*KUEUE, "default", "localqueues", "alice")
            return lq.get("status", {}).get("conditions") and lq["status"]

        status = wait_until(published, timeout=15, interval=0.1)
        # Kueue reports each LocalQueue's decayed usage only when configured for it;
        # nothing was admitted here, so the usage is empty.
        fair = (status.get("fairSharing") or {}).get("admissionFairSharingStatus")
        if admission_fair_sharing:
            assert fair["consumedResources"] == {} and fair["lastUpdate"]
        else:
            assert fair is None
    finally:
        assert server.stop() == 0


def test_the_simulated_kueues_admission_fair_sharing_is_realclusters():
    from realcluster.kueue_manifests import ADMISSION_FAIR_SHARING as REAL
    from simcluster.server.cli import ADMISSION_FAIR_SHARING as SIM

    assert SIM == REAL


def test_make_run_tells_the_portal_the_block_its_cluster_runs_with():
    from portal.demo.fair_sharing import DEMO_ADMISSION_FAIR_SHARING
    from realcluster.kueue_manifests import ADMISSION_FAIR_SHARING as REAL

    assert DEMO_ADMISSION_FAIR_SHARING == REAL
