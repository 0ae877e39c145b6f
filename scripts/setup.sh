#!/usr/bin/env bash
# Everything the test suite needs besides the Python packages, on a fresh Debian machine:
# Debian's prometheus (with promtool), chromium (the e2e tests' browser), docker-compose
# (the compose file's own validator), a kubectl within one minor version of the real control
# plane's Kubernetes, and PostgreSQL + Redis on loopback (scripts/services.sh). Safe to run
# again: it installs only what is missing and changes nothing that already works.
set -euo pipefail
cd "$(dirname "$0")/.."

apt_install() {  # apt_install [--no-install-recommends] PACKAGE...
  [ -n "${apt_updated:-}" ] || { apt-get update -qq; apt_updated=1; }
  echo "installing $*"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

command -v prometheus >/dev/null && command -v promtool >/dev/null || apt_install prometheus
command -v chromium >/dev/null || apt_install chromium
command -v docker-compose >/dev/null || apt_install --no-install-recommends docker-compose
bash scripts/install-kubectl.sh --if-needed
bash scripts/services.sh
