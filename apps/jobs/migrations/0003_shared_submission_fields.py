"""Jobs and notebooks share their base's fields and one idempotency rule.

``owner``, ``team``, ``cpu`` and ``memory`` now come from ``SubmittedWorkload``: the
columns stay where they are (the base is abstract), only the reverse names and the
notebook fields' blank change, none of which reaches the database. Jobs gain
``requested_by`` (filled from ``owner``: every job so far was asked for by its owner)
and ``via_token``, and their idempotency keys become unique per requester, as
notebooks' are.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models
from django.db.models import F


def requested_by_owner(apps, schema_editor):
    apps.get_model("jobs", "BatchJob").objects.update(requested_by=F("owner"))


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0003_api_token_expiry"),
        ("jobs", "0002_event_lost_since"),
        ("queues", "0005_team_namespace_adopted_at"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveConstraint(model_name="batchjob", name="one_job_per_idempotency_key"),
        migrations.AddField(
            model_name="batchjob",
            name="requested_by",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="batchjob",
            name="via_token",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to="accounts.apitoken",
            ),
        ),
        migrations.RunPython(requested_by_owner, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="batchjob",
            name="requested_by",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AlterField(
            model_name="batchjob",
            name="owner",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="%(class)ss",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AlterField(
            model_name="batchjob",
            name="team",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="%(class)ss",
                to="queues.team",
            ),
        ),
        migrations.AlterField(
            model_name="notebook",
            name="cpu",
            field=models.CharField(blank=True, max_length=64),
        ),
        migrations.AlterField(
            model_name="notebook",
            name="memory",
            field=models.CharField(blank=True, max_length=64),
        ),
        migrations.AlterField(
            model_name="notebook",
            name="owner",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="%(class)ss",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AlterField(
            model_name="notebook",
            name="team",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="%(class)ss",
                to="queues.team",
            ),
        ),
        migrations.AddConstraint(
            model_name="batchjob",
            constraint=models.UniqueConstraint(
                condition=models.Q(("idempotency_key", ""), _negated=True),
                fields=("requested_by", "idempotency_key"),
                name="one_batchjob_per_idempotency_key",
            ),
        ),
    ]
