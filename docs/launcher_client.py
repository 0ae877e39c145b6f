#!/usr/bin/env python3
"""Example notebook launcher: request a GPU notebook, wait until it is ready, print its URL.

    python docs/launcher_client.py --url https://quartermaster.example.org --token $QM_TOKEN \
        --image registry.example.com/notebooks/pytorch:2.4 --flavor h100 --gpus 1 [--user alice]

A launcher token (see docs/notebooks.md) may pass --user for members of its teams;
a personal token requests notebooks for its own user. The create carries an
Idempotency-Key, so retrying it after a timeout or a 5xx never makes a second
notebook. Polling backs off from 0.5 s to 5 s. Exit status: 0 ready, 1 refused or
ended, 2 timed out.
"""

from __future__ import annotations

import argparse
import sys
import time
import uuid

import requests

ENDED = {"stopped", "culled", "failed"}


def create(session: requests.Session, base: str, body: dict, attempts: int = 5) -> dict:
    key = str(uuid.uuid4())  # the same key on every retry of this one request
    for attempt in range(attempts):
        try:
            response = session.post(
                f"{base}/api/v1/notebooks/", json=body, headers={"Idempotency-Key": key}, timeout=10
            )
        except requests.ConnectionError:
            response = None
        if response is not None and response.status_code < 500:
            if response.status_code != 201:
                error = response.json()
                raise SystemExit(f"refused: {error['code']}: {error['detail']}")
            return response.json()
        time.sleep(min(5.0, 0.5 * 2**attempt))
    raise SystemExit("the portal did not answer; try again later")


def wait_until_ready(session: requests.Session, base: str, notebook_id: int, timeout: float):
    delay, deadline, last = 0.5, time.monotonic() + timeout, None
    while time.monotonic() < deadline:
        notebook = session.get(f"{base}/api/v1/notebooks/{notebook_id}/", timeout=10).json()
        if notebook["state"] != last:
            last = notebook["state"]
            position = notebook.get("queue_position")
            where = f" (position {position})" if position is not None else ""
            print(f"{last}{where} {notebook.get('pending_reason') or ''}".rstrip(), file=sys.stderr)
        if notebook["state"] in ("ready", "expiring"):
            return notebook
        if notebook["state"] in ENDED:
            raise SystemExit(f"notebook {notebook['state']}: {notebook['state_reason']}")
        time.sleep(delay)
        delay = min(5.0, delay * 1.5)
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--image", required=True)
    parser.add_argument("--flavor", required=True)
    parser.add_argument("--gpus", type=int, default=1)
    parser.add_argument("--ttl-hours", type=int)
    parser.add_argument("--user", help="launcher tokens: the user the notebook is for")
    parser.add_argument("--timeout", type=float, default=600)
    args = parser.parse_args(argv)
    session = requests.Session()
    session.headers["Authorization"] = f"Token {args.token}"
    body = {"image": args.image, "flavor": args.flavor, "gpus": args.gpus}
    if args.ttl_hours:
        body["ttl_hours"] = args.ttl_hours
    if args.user:
        body["user"] = args.user
    base = args.url.rstrip("/")
    try:
        notebook = create(session, base, body)
        ready = wait_until_ready(session, base, notebook["id"], args.timeout)
    except SystemExit as exc:
        print(exc, file=sys.stderr)
        return 1
    if ready is None:
        print(f"notebook {notebook['id']} not ready after {args.timeout:g} s", file=sys.stderr)
        return 2
    print(ready["url"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
