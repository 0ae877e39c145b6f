"""``manage.py quote FILE --as USER`` prints what the quotes API answers, writing nothing."""

import json
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from apps.jobs.models import BatchJob, InteractivePool, Notebook
from apps.queues.models import AuditEntry, ResourceFlavor
from apps.queues.reconcile.run import reconcile
from apps.reports.services.usage import set_gpu_price
from testkit.notebooks import IMAGE

pytestmark = pytest.mark.django_db


def run_quote(*args) -> str:
    out = StringIO()
    call_command("quote", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def job_yaml(tmp_path):
    path = tmp_path / "job.yaml"
    path.write_text("template: pytorch-train\nflavor: h100\ngpus_per_pod: 8\n")
    return str(path)


def test_a_yaml_job_is_quoted_for_the_given_user(sim, scientist, queue, template, admin, job_yaml):
    set_gpu_price(ResourceFlavor.objects.get(name="h100"), Decimal("2.50"), actor=admin)
    reconcile(trigger="manual")
    rows = BatchJob.objects.count(), AuditEntry.objects.count()
    text = run_quote(job_yaml, "--as", "scientist")
    # Empty cluster: vision's own 16 h100 take 8 at once. No run recorded: 8 GPUs × the
    # default maximum of 1 h = 8 GPU-hours × $2.50 = $20.00, at most. vision's queue
    # preempts nothing (withinClusterQueue: Never) and the job borrows nothing.
    assert text.splitlines() == [
        "now: it would be admitted now on h100",
        "expected cost: $20.00 (8.0 GPU-hours × $2.5/GPU-hour, price-table; "
        "run time 1.0 h, max_runtime)",
        "preempted by: none: its queue preempts nothing within itself "
        "(withinClusterQueue: Never) and it borrows nothing",
        "preemption risk: 0% (its queue's preemption policy lets nothing preempt it)",
    ]
    assert (BatchJob.objects.count(), AuditEntry.objects.count()) == rows


def test_json_prints_the_apis_answer(scientist, queue, template, tmp_path):
    path = tmp_path / "job.json"
    path.write_text(json.dumps({"template": "pytorch-train", "flavor": "h100", "pods": 17,
                                "gpus_per_pod": 1}))  # fmt: skip
    answer = json.loads(run_quote(str(path), "--as", "scientist", "--json"))
    assert (answer["verdict"], answer["field"]) == ("never", "pods")
    assert answer["expected_cost"] is None


def test_bad_input_names_the_field_and_writes_nothing(scientist, queue, template, tmp_path):
    path = tmp_path / "job.yaml"
    path.write_text("template: pytorch-train\nflavor: h100\ngpus_per_pod: 8\npods: 0\n")
    with pytest.raises(CommandError, match=r"^pods: pods must be 1–64$"):
        run_quote(str(path), "--as", "scientist")
    path.write_text("- template: pytorch-train\n")
    with pytest.raises(CommandError, match=r"^FILE: must hold one mapping, a job's body, e\.g\."):
        run_quote(str(path), "--as", "scientist")
    with pytest.raises(CommandError, match=r"^--as: no active user 'nobody'"):
        run_quote(str(path), "--as", "nobody")
    assert not BatchJob.objects.exists()


def test_a_rule_of_submission_is_named(scientist, queue, template, tmp_path):
    path = tmp_path / "job.yaml"
    path.write_text("template: no-such\nflavor: h100\ngpus_per_pod: 8\n")
    with pytest.raises(CommandError, match=r"^template: "):
        run_quote(str(path), "--as", "scientist")


def notebook_yaml(tmp_path, gpus: int) -> str:
    path = tmp_path / "notebook.yaml"
    path.write_text(f"kind: notebook\nimage: {IMAGE}\nflavor: h100\ngpus: {gpus}\n")
    return str(path)


def test_a_notebook_body_is_quoted_from_the_pools_accounting(pool, scientist, tmp_path):
    InteractivePool.objects.filter(pk=pool.pk).update(max_gpus_per_user=8)
    rows = Notebook.objects.count(), AuditEntry.objects.count()
    # The pool's 8 h100 GPUs are all free: 2 fit at once; 9 never could.
    text = run_quote(notebook_yaml(tmp_path, 2), "--as", "scientist")
    assert text.splitlines()[0] == "now: it would start now on the pool's h100"
    answer = json.loads(run_quote(notebook_yaml(tmp_path, 9), "--as", "scientist", "--json"))
    assert (answer["verdict"], answer["field"]) == ("never", "gpus")
    assert (Notebook.objects.count(), AuditEntry.objects.count()) == rows


def test_an_unknown_kind_is_refused_naming_the_field(scientist, tmp_path):
    path = tmp_path / "body.yaml"
    path.write_text("kind: pipeline\nimage: x\n")
    with pytest.raises(CommandError, match='kind: must be "job" or "notebook"'):
        run_quote(str(path), "--as", "scientist")
