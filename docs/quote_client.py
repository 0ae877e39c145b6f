#!/usr/bin/env python3
"""Example client: ask the portal what would happen to a job (or notebook) submitted now.

    python docs/quote_client.py --url https://quartermaster.example.org --token $QM_TOKEN job.yaml

FILE holds the body of ``POST /api/v1/jobs/`` (or of ``POST /api/v1/notebooks/`` with
``kind: notebook``) as JSON, or as YAML when PyYAML is installed; ``-`` reads stdin. The
quote writes nothing (docs/quotes.md). Prints the verdict and its reasons, or with
``--json`` the API's answer. Exit status, for scripts that wait for room before they
submit: 0 ``now``, 3 ``later``, 4 ``never``, 1 refused (bad input, no access), 2 the
portal did not answer.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import requests

EXIT = {"now": 0, "later": 3, "never": 4}


def read_body(name: str) -> dict:
    text = sys.stdin.read() if name == "-" else Path(name).read_text(encoding="utf-8")
    try:
        body = json.loads(text)
    except ValueError:
        try:
            import yaml
        except ImportError:
            raise SystemExit(f"{name}: not JSON (install PyYAML to read YAML)") from None
        body = yaml.safe_load(text)
    if not isinstance(body, dict):
        raise SystemExit(f"{name}: must hold one mapping, e.g. {{template: pytorch-train}}")
    return body


def ask(base: str, token: str, body: dict, attempts: int = 4) -> requests.Response:
    """POST the body; a quote writes nothing, so a 5xx or a dropped connection is retried."""
    headers = {"Authorization": f"Token {token}"}
    for attempt in range(attempts):
        try:
            response = requests.post(
                f"{base}/api/v1/quotes/", json=body, headers=headers, timeout=30
            )
        except requests.ConnectionError:
            response = None
        if response is not None and response.status_code < 500:
            return response
        time.sleep(min(5.0, 0.5 * 2**attempt))
    raise SystemExit(2)


def describe(answer: dict) -> list[str]:
    lines = [f"{answer['verdict']}: {answer['summary']}"]
    start = answer.get("estimated_start")
    if start:
        lines.append(f"starts around {start['p50']}, by {start.get('p90') or 'unknown'} (p90)")
    cost = answer.get("expected_cost")
    if cost:
        lines.append(f"costs about ${cost['usd']:.2f} ({cost['gpu_hours']} GPU-hours)")
    risk = answer.get("preemption_risk")
    if risk and risk.get("probability") is not None:
        lines.append(f"chance of being preempted before it ends: {risk['probability']:.0%}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True, help="the portal, e.g. https://qm.example.org")
    parser.add_argument("--token", required=True, help="a personal API token")
    parser.add_argument("--json", action="store_true", help="print the API's answer")
    parser.add_argument("file", help="the job's (or notebook's) body; - for stdin")
    args = parser.parse_args(argv)

    response = ask(args.url.rstrip("/"), args.token, read_body(args.file))
    answer = response.json()
    if response.status_code != 200:
        field = f" ({answer['field']})" if answer.get("field") else ""
        print(f"refused: {answer.get('code')}{field}: {answer.get('detail')}", file=sys.stderr)
        return 1
    print(json.dumps(answer, indent=2) if args.json else "\n".join(describe(answer)))
    return EXIT[answer["verdict"]]


if __name__ == "__main__":
    sys.exit(main())
