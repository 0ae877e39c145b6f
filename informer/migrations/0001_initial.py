# The WatchCursor model moves here from the reports app, its table untouched: the state
# gains the model, the database already has the table (reports' 0001 created it, under
# the name the model keeps), so no row is copied and none can be lost.

from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("reports", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="WatchCursor",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        ("name", models.CharField(max_length=63, unique=True)),
                        ("resource_version", models.CharField(blank=True, max_length=64)),
                        ("lease_owner", models.CharField(blank=True, max_length=64)),
                        ("lease_until", models.DateTimeField(blank=True, null=True)),
                        ("last_relist_at", models.DateTimeField(blank=True, null=True)),
                        ("events_seen", models.BigIntegerField(default=0)),
                        ("updated_at", models.DateTimeField(auto_now=True)),
                    ],
                    options={"db_table": "reports_watchcursor"},
                ),
            ],
            database_operations=[],
        ),
    ]
