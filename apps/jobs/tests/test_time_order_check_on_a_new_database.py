"""The time-order check is a database check, and ``migrate`` runs database checks before
it creates any table: on a new database it must wait for the tables, not fail the
migration (which stopped ``make run`` on its first start)."""

from __future__ import annotations

import os
import subprocess
import sys

from testkit.paths import REPO


def test_migrate_on_a_new_database_runs_the_check_and_succeeds(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env["QM_DATA_DIR"] = str(tmp_path)  # the embedded default: a new SQLite file there
    manage = [sys.executable, str(REPO / "manage.py")]
    migrated = subprocess.run([*manage, "migrate", "--noinput", "-v0"], env=env, cwd=REPO,
                              capture_output=True, text=True, timeout=300)  # fmt: skip
    assert migrated.returncode == 0, migrated.stderr[-2000:]
    checked = subprocess.run([*manage, "check", "--database", "default"], env=env, cwd=REPO,
                             capture_output=True, text=True, timeout=300)  # fmt: skip
    assert checked.returncode == 0 and "jobs.W001" not in checked.stdout + checked.stderr
