# WatchCursor now belongs to the informer (its lease and cursors), which took the model
# over with its table in informer 0001: here it leaves the reports app's state only.
# The table stays as it is, rows and all.

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("reports", "0004_workload_node_selector"),
        ("informer", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="WatchCursor")],
            database_operations=[],
        ),
    ]
