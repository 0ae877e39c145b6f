#!/usr/bin/env bash
# Build the real control plane (etcd, kube-apiserver, kube-controller-manager,
# kube-scheduler, kwok, kueue; kubectl too unless one within its skew is on PATH)
# from published Go modules into a cache outside the checkout:
#
#   ${QM_REALCLUSTER_CACHE:-$HOME/.cache/quartermaster}/kube-<K>-kueue-<Q>-kwok-<W>-etcd-<E>/
#     bin/          the binaries
#     modules.env   KUEUE_MODULE_DIR / KWOK_MODULE_DIR (manifests and stage YAMLs
#                   the launcher reads at run time, inside the Go module cache)
#     versions.env  copy of realcluster/versions.env used for the build
#     .complete     stamp; when present the build is skipped
#
# Versions come from realcluster/versions.env; the wrapper modules in
# realcluster/go/{kube,etcd,kwok,kueue} pin them (with committed go.sum).
# Usage: bash realcluster/build.sh   (the bin dir is the last line of stdout;
# progress and per-binary timings go to stderr)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=versions.env
source "$HERE/versions.env"
: "${KUBERNETES:?missing in versions.env}" "${KUEUE:?missing in versions.env}"
: "${KWOK:?missing in versions.env}" "${ETCD:?missing in versions.env}"

CACHE_ROOT="${QM_REALCLUSTER_CACHE:-$HOME/.cache/quartermaster}"
NAME="kube-${KUBERNETES}-kueue-${KUEUE}-kwok-${KWOK}-etcd-${ETCD}"
DEST="$CACHE_ROOT/$NAME"

modules_env_ok() {
    [[ -f "$1/modules.env" ]] || return 1
    local KUEUE_MODULE_DIR="" KWOK_MODULE_DIR=""
    # shellcheck disable=SC1091
    source "$1/modules.env"
    [[ -n "$KUEUE_MODULE_DIR" && -d "$KUEUE_MODULE_DIR/config/components/crd/bases" ]] &&
        [[ -n "$KWOK_MODULE_DIR" && -d "$KWOK_MODULE_DIR/kustomize/stage" ]]
}

# Warm path: nothing to do (no `go` invocation at all).
if [[ -f "$DEST/.complete" ]] && modules_env_ok "$DEST"; then
    echo "realcluster: up to date: $DEST" >&2
    echo "$DEST/bin"
    exit 0
fi

log() { echo "realcluster: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

if ! command -v go >/dev/null && [[ -x /usr/local/go/bin/go ]]; then
    PATH="/usr/local/go/bin:$PATH"
fi
command -v go >/dev/null || die "go not found in PATH (need Go >= 1.26 for kwok/etcd)"
export CGO_ENABLED=0
export GOWORK=off
# Builds must not rewrite the committed go.mod/go.sum; run `go mod tidy` in the
# wrapper module by hand when changing versions. No VCS stamping: the wrappers
# live inside the Quartermaster checkout, whose state is irrelevant here.
export GOFLAGS="-mod=readonly -buildvcs=false"

GO_BUILD=(go build -p 2 -trimpath)

# gomod <wrapper> <template> <module>: query the wrapper module's build list.
gomod() { (cd "$HERE/go/$1" && go list -m -f "$2" "$3"); }

# module_dir <wrapper> <module>: directory of <module> in the module cache.
module_dir() {
    local dir
    dir="$(gomod "$1" '{{.Dir}}' "$2")"
    if [[ -z "$dir" || ! -d "$dir" ]]; then
        (cd "$HERE/go/$1" && go mod download "$2") >&2
        dir="$(gomod "$1" '{{.Dir}}' "$2")"
    fi
    [[ -n "$dir" && -d "$dir" ]] || die "cannot locate $2 in the module cache"
    echo "$dir"
}

write_modules_env() {
    local kueue_dir kwok_dir
    kueue_dir="$(module_dir kueue sigs.k8s.io/kueue)"
    kwok_dir="$(module_dir kwok sigs.k8s.io/kwok)"
    local p
    for p in config/components/crd/bases config/components/webhook/manifests.yaml config/components/rbac; do
        [[ -e "$kueue_dir/$p" ]] || die "Kueue module has no $p ($kueue_dir)"
    done
    [[ -d "$kwok_dir/kustomize/stage" ]] || die "KWOK module has no kustomize/stage ($kwok_dir)"
    {
        echo "# Written by realcluster/build.sh: module directories in the Go module cache."
        echo "KUEUE_MODULE_DIR=$kueue_dir"
        echo "KWOK_MODULE_DIR=$kwok_dir"
    } >"$1/modules.env"
}

# Binaries present but the module cache was cleaned: only refresh modules.env.
if [[ -f "$DEST/.complete" ]]; then
    log "module directories missing; re-downloading sources for manifests"
    write_modules_env "$DEST"
    echo "$DEST/bin"
    exit 0
fi

# --- version consistency between versions.env and the wrapper go.mod files ---
[[ "$KUBERNETES" =~ ^v([0-9]+)\.([0-9]+)\.([0-9]+)$ ]] || die "KUBERNETES=$KUBERNETES is not vX.Y.Z"
KUBE_MAJOR="${BASH_REMATCH[1]}"
KUBE_MINOR="${BASH_REMATCH[2]}"
STAGING_VERSION="v0.${KUBE_MINOR}.${BASH_REMATCH[3]}"

expect() { # expect <wrapper> <module> <version> [replace]
    local got
    if [[ "${4:-}" == replace ]]; then
        got="$(gomod "$1" '{{with .Replace}}{{.Version}}{{end}}' "$2")"
    else
        got="$(gomod "$1" '{{.Version}}' "$2")"
    fi
    [[ "$got" == "$3" ]] || die "realcluster/go/$1 has $2 ${4:+(replace) }at '$got' but versions.env wants $3;
    fix: cd realcluster/go/$1 && go get $2@$3 && go mod tidy (for kube also update every k8s.io staging replace)"
}
log "checking wrapper modules against versions.env"
expect kube k8s.io/kubernetes "$KUBERNETES"
expect kube k8s.io/api "$STAGING_VERSION" replace
expect kube k8s.io/client-go "$STAGING_VERSION" replace
expect kube k8s.io/component-base "$STAGING_VERSION" replace
expect kueue sigs.k8s.io/kueue "$KUEUE"
expect kwok sigs.k8s.io/kwok "$KWOK"
expect etcd go.etcd.io/etcd/server/v3 "$ETCD"

# Reproducible build date: the commit time of the release, as recorded by the
# module proxy (upstream release builds also use the commit time).
module_date() { gomod "$1" '{{with .Time}}{{.UTC.Format "2006-01-02T15:04:05Z"}}{{end}}' "$2"; }
KUBE_DATE="$(module_date kube k8s.io/kubernetes)"
KUEUE_DATE="$(module_date kueue sigs.k8s.io/kueue)"

mkdir -p "$CACHE_ROOT"
TMP="$(mktemp -d "$CACHE_ROOT/.${NAME}.tmp.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT
chmod 755 "$TMP"
mkdir -p "$TMP/bin"

elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
TOTAL_START=$(date +%s.%N)
# build <wrapper> <binary name> <package> <ldflags...>
build() {
    local wrapper="$1" name="$2" pkg="$3"
    shift 3
    local start end
    log "building $name ($pkg)"
    start=$(date +%s.%N)
    (cd "$HERE/go/$wrapper" && "${GO_BUILD[@]}" -ldflags "-s -w $*" -o "$TMP/bin/$name" "$pkg")
    end=$(date +%s.%N)
    printf 'realcluster: built %-24s %7.1f s  %4d MiB\n' "$name" "$(elapsed "$start" "$end")" \
        "$(($(stat -c %s "$TMP/bin/$name") / 1048576))" >&2
}

# Kubernetes: module zips keep "$Format:%H$" unexpanded, so stamp the version
# the way hack/lib/version.sh does, for both version packages.
KUBE_LDFLAGS=()
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    KUBE_LDFLAGS+=(
        "-X $pkg.gitVersion=$KUBERNETES"
        "-X $pkg.gitMajor=$KUBE_MAJOR"
        "-X $pkg.gitMinor=$KUBE_MINOR"
        "-X $pkg.gitCommit=${KUBERNETES_COMMIT:-unknown}"
        "-X $pkg.gitTreeState=clean"
        "-X $pkg.buildDate=$KUBE_DATE"
    )
done
for cmd in kube-apiserver kube-controller-manager kube-scheduler; do
    build kube "$cmd" "k8s.io/kubernetes/cmd/$cmd" "${KUBE_LDFLAGS[@]}"
done

# kubectl is only a client: one on PATH within its supported skew (one minor version either
# side of the API server) is copied instead of spending a minute building another.
kubectl_minor() { "$1" version --client -o json 2>/dev/null | sed -n 's/.*"minor": *"\([0-9]*\).*/\1/p' | head -n1; }
KUBECTL_REUSED=""
if found="$(command -v kubectl)"; then
    minor="$(kubectl_minor "$found")"
    if [[ -n "$minor" ]] && ((minor >= KUBE_MINOR - 1 && minor <= KUBE_MINOR + 1)); then
        cp "$(readlink -f "$found")" "$TMP/bin/kubectl"
        KUBECTL_REUSED="1.$minor"
        log "reusing kubectl 1.$minor from $found (within one minor of $KUBERNETES)"
    fi
fi
[[ -n "$KUBECTL_REUSED" ]] || build kube kubectl k8s.io/kubernetes/cmd/kubectl "${KUBE_LDFLAGS[@]}"

build etcd etcd go.etcd.io/etcd/server/v3 \
    "-X go.etcd.io/etcd/api/v3/version.GitSHA=${ETCD_COMMIT:-unknown}"

build kwok kwok sigs.k8s.io/kwok/cmd/kwok \
    "-X sigs.k8s.io/kwok/pkg/consts.Version=$KWOK" \
    "-X sigs.k8s.io/kwok/pkg/consts.PreRelease=GA"

build kueue kueue sigs.k8s.io/kueue/cmd/kueue \
    "-X sigs.k8s.io/kueue/pkg/version.GitVersion=$KUEUE" \
    "-X sigs.k8s.io/kueue/pkg/version.GitCommit=${KUEUE_COMMIT:-unknown}" \
    "-X sigs.k8s.io/kueue/pkg/version.BuildDate=$KUEUE_DATE"

# Sanity: the version stamps took effect.
check_version() { # check_version <binary> <expected substring> <args...>
    local out
    out="$("$TMP/bin/$1" "${@:3}" 2>&1)" || die "$1 ${*:3} failed: $out"
    [[ "$out" == *"$2"* ]] || die "$1 ${*:3} printed '$out', expected '$2'"
}
check_version kube-apiserver "Kubernetes $KUBERNETES" --version
check_version kube-controller-manager "Kubernetes $KUBERNETES" --version
check_version kube-scheduler "Kubernetes $KUBERNETES" --version
if [[ -z "$KUBECTL_REUSED" ]]; then
    check_version kubectl "gitVersion: $KUBERNETES" version --client -o yaml
fi
check_version etcd "etcd Version: ${ETCD#v}" --version
check_version kwok "$KWOK" --version

write_modules_env "$TMP"
cp "$HERE/versions.env" "$TMP/versions.env"
go version >"$TMP/go-version.txt"
touch "$TMP/.complete"

# Atomic publish: rename the finished directory into place.
[[ -f "$DEST/.complete" ]] || rm -rf "$DEST" # leftover without stamp (should not happen)
if ! mv -T "$TMP" "$DEST" 2>/dev/null; then
    [[ -f "$DEST/.complete" ]] || die "could not move $TMP to $DEST"
    log "another build finished first; using it"
fi
trap - EXIT
rm -rf "$TMP"
log "total build time $(elapsed "$TOTAL_START" "$(date +%s.%N)") s"
echo "$DEST/bin"
