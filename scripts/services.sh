#!/usr/bin/env bash
# PostgreSQL and Redis on loopback for the test suite: install them from Debian's packages
# when missing, let user `postgres` in from 127.0.0.1 without a password, start both, and
# wait until they answer. Safe to run again; changes nothing that already works.
set -euo pipefail

apt_install() {
  [ -n "${apt_updated:-}" ] || { apt-get update -qq; apt_updated=1; }
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

wait_for() {  # wait_for SECONDS COMMAND...
  local deadline=$((SECONDS + $1)); shift
  until "$@" >/dev/null 2>&1; do
    [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep 0.5
  done
}

pg_answers() { pg_isready -q -h 127.0.0.1 -p 5432 && psql -h 127.0.0.1 -U postgres -Atc 'select 1' postgres; }

ensure_postgres() {
  if pg_answers >/dev/null 2>&1; then return; fi
  command -v pg_ctlcluster >/dev/null && ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 \
    || { echo "installing PostgreSQL"; apt_install postgresql; }
  local version
  version=$(ls /usr/lib/postgresql | sort -V | tail -n1)
  [ -d "/etc/postgresql/$version/main" ] || pg_createcluster "$version" main >/dev/null
  local conf="/etc/postgresql/$version/main"
  # Tests connect as postgres over TCP without a password: trust loopback only.
  if ! grep -q '^# quartermaster-tests' "$conf/pg_hba.conf"; then
    { echo '# quartermaster-tests: loopback trust for the test suite'
      echo 'host all all 127.0.0.1/32 trust'
      echo 'host all all ::1/128 trust'
      cat "$conf/pg_hba.conf"; } > "$conf/pg_hba.conf.new"
    mv "$conf/pg_hba.conf.new" "$conf/pg_hba.conf"
  fi
  echo "starting PostgreSQL $version"
  pg_ctlcluster --skip-systemctl-redirect "$version" main start 2>/dev/null \
    || pg_ctlcluster --skip-systemctl-redirect "$version" main reload
  wait_for 60 pg_answers || { echo "PostgreSQL did not answer on 127.0.0.1:5432" >&2; exit 1; }
}

ensure_redis() {
  if redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then return; fi
  command -v redis-server >/dev/null || { echo "installing Redis"; apt_install redis-server; }
  echo "starting Redis"
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no
  wait_for 30 redis-cli -h 127.0.0.1 -p 6379 ping \
    || { echo "Redis did not answer on 127.0.0.1:6379" >&2; exit 1; }
}

ensure_postgres
ensure_redis
pg_isready -h 127.0.0.1 -p 5432
redis-cli -h 127.0.0.1 -p 6379 ping
