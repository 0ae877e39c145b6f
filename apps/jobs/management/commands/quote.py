"""``manage.py quote job.yaml --as alice``: what would happen to that job if submitted now."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from django.core.management.base import BaseCommand, CommandError
from rest_framework.exceptions import ValidationError

from apps.accounts.management.commands.create_token import active_user
from apps.jobs.api.serializers import NotebookCreateSerializer, QuoteSerializer, job_request
from apps.jobs.services import NotebookRequest, Principal
from apps.jobs.services.notebook_quotes import quote_notebook
from apps.jobs.services.quotes import quote_job
from core.errors import DomainError

EXAMPLE = "template: pytorch-train, flavor: h100, gpus_per_pod: 8"


class Command(BaseCommand):
    help = (
        "Quote a job: FILE holds the body of POST /api/v1/jobs/ as YAML or JSON (or, with "
        "kind: notebook, of POST /api/v1/notebooks/); prints the verdict (never, now or later) with its reasons, start estimate and cost, as "
        "POST /api/v1/quotes/ answers it for the user of --as. Writes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="the job's body (YAML or JSON); - for stdin")
        parser.add_argument("--as", dest="username", required=True, help="who would submit it")
        parser.add_argument(
            "--json", dest="as_json", action="store_true", help="print the API's JSON answer"
        )

    def handle(self, *args, file: str, username: str, as_json: bool, **options) -> None:
        user = active_user(username, option="--as")
        body = _read_body(file)
        try:
            quote = _quote(user, body)
        except ValidationError as exc:
            raise CommandError(_first_problem(exc.detail)) from None
        except DomainError as exc:
            raise CommandError(f"{exc.field}: {exc.detail}" if exc.field else exc.detail) from None
        answer = QuoteSerializer(quote.as_dict()).data
        self.stdout.write(_json_text(answer) if as_json else _in_lines(answer))


def _quote(user, body: dict):
    """A job's quote, or with ``kind: notebook`` a notebook's, as the quotes API gives it;
    a notebook is quoted for ``user`` (``--as``), whatever ``user`` a launcher's body names."""
    kind = body.get("kind", "job")
    fields = {k: v for k, v in body.items() if k != "kind"}
    if kind == "job":
        return quote_job(user, job_request(fields), actor=Principal(user))
    if kind != "notebook":
        raise CommandError('kind: must be "job" or "notebook", e.g. kind: notebook')
    request = NotebookCreateSerializer(data=fields)
    request.is_valid(raise_exception=True)
    data = {k: v for k, v in request.validated_data.items() if k != "user"}
    return quote_notebook(user, NotebookRequest(**data), actor=Principal(user))


def _read_body(file: str) -> dict:
    try:
        text = Path("/dev/stdin" if file == "-" else file).read_text()
    except OSError as exc:
        raise CommandError(f"FILE: cannot read {file}: {exc.strerror}") from None
    try:
        body = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise CommandError(f"FILE: not YAML or JSON ({exc})") from None
    if not isinstance(body, dict):
        raise CommandError(f"FILE: must hold one mapping, a job's body, e.g. {{{EXAMPLE}}}")
    return body


def _first_problem(detail) -> str:
    """``field: rule`` of the first field DRF refused."""
    if isinstance(detail, dict):
        field, problems = next(iter(detail.items()))
        return f"{field}: {problems[0] if isinstance(problems, list) else problems}"
    return str(detail[0] if isinstance(detail, list) else detail)


def _json_text(answer: dict) -> str:
    return json.dumps(answer, indent=2, sort_keys=True)


def _in_lines(answer: dict) -> str:
    lines = [f"{answer['verdict']}: {answer['summary']}"]
    if start := answer["estimated_start"]:
        lines.append(f"estimated start: {start['p50']} (p50), {start['p90'] or '-'} (p90)")
    if answer["estimate_note"]:
        lines.append(f"estimate: {answer['estimate_note']}")
    if cost := answer["expected_cost"]:
        lines.append(
            f"expected cost: ${cost['usd']:.2f} ({cost['gpu_hours']} GPU-hours × "
            f"${cost['usd_per_gpu_hour']}/GPU-hour, {cost['price_source']}; run time "
            f"{cost['run_hours']} h, {cost['run_time_basis']})"
        )
    if answer["cost_note"]:
        lines.append(f"cost: {answer['cost_note']}")
    if risk := answer["preemption_risk"]:
        lines += [f"preempted by: {risk['policy_summary']}", _risk_line(risk)]
    return "\n".join(lines)


def _risk_line(risk: dict) -> str:
    if risk["probability"] is None:
        return f"preemption risk: unknown ({risk['note']})"
    if not risk["by_policy"]:
        return f"preemption risk: 0% ({risk['note']})"
    return (
        f"preemption risk: {risk['probability']:.1%} over {risk['run_hours']} h "
        f"({risk['run_time_basis']}): {risk['preemptions']} "
        f"preemption{'' if risk['preemptions'] == 1 else 's'} in "
        f"{risk['admitted_hours']} admitted hours ({risk['scope']})"
    )
