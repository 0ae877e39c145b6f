#!/usr/bin/env bash
# The whole suite on a fresh machine, with nothing else to run first: install what the tests
# need (scripts/setup.sh), then conventions, then everything that needs no real control plane
# on PostgreSQL + Redis and the database-portable domain tests on SQLite, while the real
# control plane builds in the background (once per version set, then cached), and last the
# tests on the real control plane, on both databases. Arguments go to every pytest run (e.g. a path or -k).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.venv/bin
mkdir -p var
started=$SECONDS
elapsed() { echo "[$((SECONDS - started)) s]"; }

echo "== set-up: packages and services $(elapsed)"
bash scripts/setup.sh

BUILD_LOG=var/realcluster-build.log
echo "== real control plane: building in the background (log: $BUILD_LOG) $(elapsed)"
bash realcluster/build.sh >"$BUILD_LOG.out" 2>"$BUILD_LOG" &
build=$!
# A failure below must not leave the build running behind us.
trap 'kill "$build" 2>/dev/null || true' EXIT

# pytest answers 5 when the arguments select no test of a tier: nothing to run is a pass.
run_pytest() { "$@" || { rc=$?; [ "$rc" -eq 5 ] || return "$rc"; }; }

echo "== conventions $(elapsed)"
$BIN/ruff check .
$BIN/ruff format --check .
QM_DATA_DIR="$(mktemp -d)" $BIN/python manage.py makemigrations --check --dry-run

export DATABASE_URL="${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/quartermaster}"
export REDIS_URL="${TEST_REDIS_URL:-redis://127.0.0.1:6379/15}"

echo "== suite on PostgreSQL + Redis, simulated cluster $(elapsed)"
run_pytest $BIN/pytest --tier sim "$@"

echo "== domain suite on SQLite $(elapsed)"
on_sqlite() {  # the domain suite (apps/queues) on the embedded default
  (
    unset DATABASE_URL REDIS_URL
    QM_DATA_DIR="$(mktemp -d)" run_pytest $BIN/pytest -m "not postgres_only" apps/queues "$@"
  )
}
on_sqlite --tier sim "$@"

echo "== waiting for the real control plane's build $(elapsed)"
if ! wait "$build"; then
  tail -n 40 "$BUILD_LOG" >&2
  echo "the real control plane did not build (log: $BUILD_LOG)" >&2
  exit 1
fi
trap - EXIT
grep -h "built\|reusing\|total\|up to date" "$BUILD_LOG" || true

echo "== suite on PostgreSQL + Redis, real control plane $(elapsed)"
run_pytest $BIN/pytest --tier real "$@"

echo "== domain suite on SQLite, real control plane $(elapsed)"
on_sqlite --tier real "$@"
echo "== make test passed in $((SECONDS - started)) s"
