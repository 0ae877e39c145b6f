"""Concurrent clients: optimistic concurrency holds under contention."""

from __future__ import annotations

import threading

from kubernetes import client, config

THREADS = 6
INCREMENTS = 8


def increment(kubeconfig: str, errors: list[BaseException]) -> None:
    core = client.CoreV1Api(config.new_client_from_config(kubeconfig))
    done = 0
    try:
        while done < INCREMENTS:
            cm = core.read_namespaced_config_map("counter", "default")
            cm.data["n"] = str(int(cm.data["n"]) + 1)
            try:
                core.replace_namespaced_config_map("counter", "default", cm)
                done += 1
            except client.ApiException as exc:
                if exc.status != 409:
                    raise
    except BaseException as exc:  # surfaced by the test thread below
        errors.append(exc)


def test_read_modify_write_loses_no_update(sim, core):
    core.create_namespaced_config_map(
        "default", {"metadata": {"name": "counter"}, "data": {"n": "0"}}
    )
    errors: list[BaseException] = []
    threads = [
        threading.Thread(target=increment, args=(str(sim.kubeconfig_path), errors))
        for _ in range(THREADS)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    assert core.read_namespaced_config_map("counter", "default").data["n"] == str(
        THREADS * INCREMENTS
    )


def test_only_one_concurrent_create_wins(sim):
    outcomes: list[int] = []
    lock = threading.Lock()

    def create() -> None:
        core = client.CoreV1Api(config.new_client_from_config(str(sim.kubeconfig_path)))
        try:
            core.create_namespaced_config_map("default", {"metadata": {"name": "once"}})
            code = 201
        except client.ApiException as exc:
            code = exc.status
        with lock:
            outcomes.append(code)

    threads = [threading.Thread(target=create) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(outcomes) == [201] + [409] * (THREADS - 1)
