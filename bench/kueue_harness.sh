#!/usr/bin/env bash
# Run Kueue's own scheduler-performance harness (the runner with minimalkueue
# against envtest) on this machine, the way Kueue's `make run-performance-scheduler`
# does, and print its summary next to Kueue's published averages and our replay
# (bench/kueue_baseline.py --latency kueue).
#
#   bash bench/kueue_harness.sh [--generator FILE] [--out DIR]
#
# The runner and minimalkueue are built once from the published Kueue module
# (wrapper module bench/kueue_harness/, same Kueue version as
# realcluster/versions.env) into
#   ${QM_REALCLUSTER_CACHE:-$HOME/.cache/quartermaster}/kueue-harness-<KUEUE>/
# envtest's kube-apiserver and etcd are realcluster/build.sh's. The generator
# config, CRDs and rangespec are read from the Kueue module in the Go module
# cache; nothing is downloaded at run time. A baseline run takes ~7 minutes of
# both cores: do not start it while someone else is measuring.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(dirname "$HERE")"
WRAPPER="$HERE/kueue_harness"
# shellcheck source=../realcluster/versions.env
source "$REPO/realcluster/versions.env"
: "${KUEUE:?missing in realcluster/versions.env}"

CACHE="${QM_REALCLUSTER_CACHE:-$HOME/.cache/quartermaster}/kueue-harness-$KUEUE"
log() { echo "kueue-harness: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

GENERATOR=""
OUT=""
while [[ $# -gt 0 ]]; do
    [[ "$1" == --generator || "$1" == --out ]] && [[ -z "${2:-}" ]] && die "$1 needs a value"
    case "$1" in
    --generator)
        [[ -f "$2" ]] || die "--generator: no such file: $2"
        GENERATOR="$(realpath "$2")"
        shift 2
        ;;
    --out) OUT="$2"; shift 2 ;;
    *) die "unknown argument $1 (usage: $0 [--generator FILE] [--out DIR])" ;;
    esac
done

build_harness() {
    if ! command -v go >/dev/null && [[ -x /usr/local/go/bin/go ]]; then
        PATH="/usr/local/go/bin:$PATH"
    fi
    command -v go >/dev/null || die "go not found in PATH"
    export CGO_ENABLED=0 GOWORK=off GOFLAGS="-mod=readonly -buildvcs=false"
    local pinned
    pinned="$(cd "$WRAPPER" && go list -m -f '{{.Version}}' sigs.k8s.io/kueue)"
    [[ "$pinned" == "$KUEUE" ]] ||
        die "bench/kueue_harness pins Kueue $pinned but realcluster/versions.env wants $KUEUE"
    local tmp start
    mkdir -p "$(dirname "$CACHE")"
    tmp="$(mktemp -d "$CACHE.tmp.XXXXXX")"
    trap 'rm -rf "$tmp"' EXIT
    mkdir -p "$tmp/bin"
    start=$(date +%s)
    for cmd in runner minimalkueue; do
        log "building $cmd"
        (cd "$WRAPPER" && go build -p 2 -trimpath -ldflags "-s -w" -o "$tmp/bin/$cmd" \
            "sigs.k8s.io/kueue/test/performance/scheduler/$cmd")
    done
    # The generator configs, CRDs and rangespecs are read from the module at run time.
    echo "KUEUE_MODULE_DIR=$(cd "$WRAPPER" && go list -m -f '{{.Dir}}' sigs.k8s.io/kueue)" \
        >"$tmp/modules.env"
    touch "$tmp/.complete"
    rm -rf "$CACHE"
    mv -T "$tmp" "$CACHE"
    trap - EXIT
    log "built in $(($(date +%s) - start)) s: $CACHE/bin"
}

[[ -f "$CACHE/.complete" ]] || build_harness
KUEUE_MODULE_DIR=""
# shellcheck disable=SC1091
source "$CACHE/modules.env"
SCENARIOS="$KUEUE_MODULE_DIR/test/performance/scheduler/configs"
[[ -d "$SCENARIOS/baseline" ]] || die "Kueue module missing at $KUEUE_MODULE_DIR; rm -rf $CACHE and rerun"
GENERATOR="${GENERATOR:-$SCENARIOS/baseline/generator.yaml}"

# envtest starts this kube-apiserver and etcd (warm: no go invocation).
CONTROL_PLANE_BIN="$(bash "$REPO/realcluster/build.sh" | tail -n 1)"

OUT="${OUT:-$REPO/var/kueue-harness/$(date -u +%Y%m%dT%H%M%SZ)}"
mkdir -p "$OUT"
OUT="$(realpath "$OUT")"
uptime >"$OUT/load-before.txt"
log "running $(basename "$(dirname "$GENERATOR")")/$(basename "$GENERATOR") into $OUT ($(cat "$OUT/load-before.txt"))"
# Flags as in Kueue's Makefile-test.mk run-performance-scheduler with its defaults
# (minimalkueue logs to files, metrics scraped every 5 s).
start=$(date +%s.%N)
KUBEBUILDER_ASSETS="$CONTROL_PLANE_BIN" "$CACHE/bin/runner" \
    --o "$OUT" \
    --crds="$KUEUE_MODULE_DIR/config/components/crd/bases" \
    --generatorConfig="$GENERATOR" \
    --minimalKueue="$CACHE/bin/minimalkueue" \
    --withLogs=true --logToFile=true \
    --metricsScrapeInterval=5s \
    >"$OUT/runner.log" 2>&1 || die "runner failed, see $OUT/runner.log"
end=$(date +%s.%N)
uptime >"$OUT/load-after.txt"
awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f\n", b - a }' >"$OUT/runner-wall-s.txt"

SUMMARY_ARGS=("$OUT" --kueue-version "$KUEUE")
RANGESPEC="$(dirname "$GENERATOR")/rangespec.yaml"
[[ -f "$RANGESPEC" ]] && SUMMARY_ARGS+=(--rangespec "$RANGESPEC")
"$REPO/.venv/bin/python" "$HERE/kueue_harness_summary.py" "${SUMMARY_ARGS[@]}"
