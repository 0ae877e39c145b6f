"""``manage.py`` run as a deployment would: a subprocess without the tests' allowances."""

import os
import subprocess
import sys

from testkit.paths import REPO


def manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    # The browser tests allow sync ORM calls under their event loop; a deployment never does.
    dropped = ("SECRET_KEY", "DEBUG", "QM_ENV", "DJANGO_ALLOW_ASYNC_UNSAFE")
    clean = {k: v for k, v in os.environ.items() if k not in dropped}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=REPO,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
