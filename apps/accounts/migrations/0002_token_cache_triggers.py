"""Triggers that tell every web process's API token cache to forget (PostgreSQL only).

A token revoked, re-keyed, moved or deleted, or a user row changed or deleted, sends
``NOTIFY qm_auth_changed`` on commit, whatever made the change. Only ``last_used_at``
(written once a minute by authentication itself) and ``last_login`` are ignored.
See ``apps/accounts/token_cache.py``.
"""

from django.db import migrations

FUNCTION = """
CREATE OR REPLACE FUNCTION qm_auth_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('qm_auth_changed', TG_OP || ' ' || TG_TABLE_NAME);
    RETURN NULL;
END $$;
"""
TRIGGERS = [
    ("accounts_apitoken", "last_used_at"),
    ("accounts_user", "last_login"),
]


def _create(table: str, ignored: str) -> str:
    return f"""
CREATE TRIGGER {table}_changed AFTER UPDATE ON {table} FOR EACH ROW
    WHEN (to_jsonb(OLD) - '{ignored}' IS DISTINCT FROM to_jsonb(NEW) - '{ignored}')
    EXECUTE FUNCTION qm_auth_changed();
CREATE TRIGGER {table}_deleted AFTER DELETE ON {table} FOR EACH ROW
    EXECUTE FUNCTION qm_auth_changed();
CREATE TRIGGER {table}_truncated AFTER TRUNCATE ON {table} FOR EACH STATEMENT
    EXECUTE FUNCTION qm_auth_changed();
"""


def _drop(table: str) -> str:
    return "".join(
        f"DROP TRIGGER IF EXISTS {table}_{event} ON {table};"
        for event in ("changed", "deleted", "truncated")
    )


def forwards(apps, schema_editor) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return  # SQLite: one process, no listener, so the cache is never used
    schema_editor.execute(FUNCTION)
    for table, ignored in TRIGGERS:
        schema_editor.execute(_create(table, ignored))


def backwards(apps, schema_editor) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return
    for table, _ignored in TRIGGERS:
        schema_editor.execute(_drop(table))
    schema_editor.execute("DROP FUNCTION IF EXISTS qm_auth_changed()")


class Migration(migrations.Migration):
    dependencies = [("accounts", "0001_initial")]
    operations = [migrations.RunPython(forwards, backwards)]
