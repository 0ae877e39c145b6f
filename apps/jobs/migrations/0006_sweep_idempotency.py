"""Sweeps take an Idempotency-Key like jobs and notebooks: who asked, the key, the body's hash.

A sweep stored before this was asked for by its owner (no launcher submits sweeps), so
``requested_by`` is filled from ``owner`` before it becomes required.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models
from django.db.models import F, Q


def requested_by_owner(apps, schema_editor):
    apps.get_model("jobs", "Sweep").objects.update(requested_by=F("owner"))


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0001_initial"),
        ("jobs", "0005_sweeps"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="sweep",
            name="idempotency_key",
            field=models.CharField(blank=True, max_length=255),
        ),
        migrations.AddField(
            model_name="sweep",
            name="request_hash",
            field=models.CharField(blank=True, max_length=64),
        ),
        migrations.AddField(
            model_name="sweep",
            name="via_token",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to="accounts.apitoken",
            ),
        ),
        migrations.AddField(
            model_name="sweep",
            name="requested_by",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.RunPython(requested_by_owner, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="sweep",
            name="requested_by",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddConstraint(
            model_name="sweep",
            constraint=models.UniqueConstraint(
                condition=Q(("idempotency_key", ""), _negated=True),
                fields=("requested_by", "idempotency_key"),
                name="one_sweep_per_idempotency_key",
            ),
        ),
    ]
