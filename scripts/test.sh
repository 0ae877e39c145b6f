#!/usr/bin/env bash
# The whole suite: conventions, then everything on PostgreSQL + Redis, then the
# database-portable domain tests again on the embedded SQLite default.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.venv/bin

bash scripts/services.sh

echo "== real control plane (built from Go modules once per version set, then cached)"
bash realcluster/build.sh >/dev/null

echo "== conventions"
$BIN/ruff check .
$BIN/ruff format --check .
QM_DATA_DIR="$(mktemp -d)" $BIN/python manage.py makemigrations --check --dry-run

echo "== full suite on PostgreSQL + Redis"
DATABASE_URL="${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/quartermaster}" \
REDIS_URL="${TEST_REDIS_URL:-redis://127.0.0.1:6379/15}" \
  $BIN/pytest "$@"

echo "== domain suite on SQLite"
QM_DATA_DIR="$(mktemp -d)" $BIN/pytest -m "not postgres_only" apps/queues "$@"
