"""Production settings: secure cookies, HSTS, nosniff, frame denial, referrer
policy, HTTPS redirect (probes exempt), checked on real responses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SECRET = "p" * 30 + "-production-secret-for-the-header-test-" + "q" * 20

PROBE = r"""
import json, django
django.setup()
from django.conf import settings
from django.test import Client, override_settings
from django.test.utils import setup_test_environment
setup_test_environment()
# The manifest storage needs collectstatic; the headers do not depend on it.
override_settings(STORAGES={**settings.STORAGES, "staticfiles": {
    "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}).enable()
secure = Client(HTTP_X_FORWARDED_PROTO="https", HTTP_HOST="portal.example.org")
login = secure.get("/login/")
plain = Client(HTTP_HOST="portal.example.org").get("/login/")
probe = Client(HTTP_HOST="portal.example.org").get("/healthz")
print(json.dumps({
    "headers": dict(login.headers),
    "csrf_cookie": {k: v for k, v in login.cookies["csrftoken"].items() if v},
    "plain": [plain.status_code, plain.get("Location", "")],
    "probe": probe.status_code,
    "session_secure": settings.SESSION_COOKIE_SECURE,
    "session_httponly": settings.SESSION_COOKIE_HTTPONLY,
}))
"""


def probe(tmp_path) -> dict:
    clean = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "DEBUG", "QM_ENV")}
    env = {
        **clean,
        "QM_ENV": "production",
        "SECRET_KEY": SECRET,
        "ALLOWED_HOSTS": "portal.example.org",
        "QM_DATA_DIR": str(tmp_path),
        "DJANGO_SETTINGS_MODULE": "portal.settings",
    }
    result = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_production_responses_carry_the_security_headers(tmp_path):
    seen = probe(tmp_path)
    headers = seen["headers"]
    assert headers["Strict-Transport-Security"].startswith("max-age=31536000")
    assert "includeSubDomains" in headers["Strict-Transport-Security"]
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["X-Frame-Options"] == "DENY"
    assert headers["Referrer-Policy"] == "same-origin"
    assert headers["Cross-Origin-Opener-Policy"] == "same-origin"
    assert seen["csrf_cookie"]["secure"] is True
    assert seen["session_secure"] is True and seen["session_httponly"] is True
    assert seen["plain"] == [301, "https://portal.example.org/login/"]
    assert seen["probe"] == 200  # kubelet probes speak plain HTTP
