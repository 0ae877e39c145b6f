"""``manage.py check --database default``: no notebook or job has its times out of order.

A record's times come from one clock (ours): created ≤ admitted/ready ≤ ended. A row
breaking that shows a time copied from another clock (a cluster's) unclamped.
"""

from __future__ import annotations

from django.core import checks

SHOWN = 5  # ids named in the message; the count covers all


@checks.register(checks.Tags.database)
def check_time_order(databases=None, **_: object) -> list[checks.CheckMessage]:
    if not databases:  # database checks run only when asked (``check --database``)
        return []
    from apps.jobs.models import BatchJob, Notebook

    problems = []
    for model in (Notebook, BatchJob):
        if not _table_exists(model):
            continue  # ``migrate`` runs database checks before it creates the tables
        wrong = model.objects.times_out_of_order()
        count = wrong.count()
        if count:
            ids = list(wrong.order_by("pk").values_list("pk", flat=True)[:SHOWN])
            order = " ≤ ".join(model.TIME_ORDER)
            problems.append(
                checks.Warning(
                    f"{count} {model._meta.verbose_name_plural} have times out of order "
                    f"(expected {order}), e.g. ids {ids}",
                    hint="a time was stored from a cluster's clock without clamping",
                    obj=model,
                    id="jobs.W001",
                )
            )
    return problems


def _table_exists(model) -> bool:
    from django.db import connection

    return model._meta.db_table in connection.introspection.table_names()
