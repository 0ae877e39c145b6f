"""Where the control plane's binaries and module sources live, and building them once.

``realcluster/versions.env`` pins the versions; ``realcluster/build.sh`` builds the
binaries from published Go modules into a cache outside the checkout, one folder per
version set, and records where Kueue's and KWOK's module sources are (their CRDs,
webhook configurations and stages are read from there at run time).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _read_env_file(path: Path) -> dict[str, str]:
    pairs = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#") and "=" in line:
            key, value = line.split("=", 1)
            pairs[key.strip()] = value.strip()
    return pairs


def versions() -> dict[str, str]:
    """``KUBERNETES``, ``KUEUE``, ``KWOK``, ``ETCD`` as pinned in versions.env."""
    return _read_env_file(HERE / "versions.env")


def install_dir() -> Path:
    v = versions()
    root = Path(os.environ.get("QM_REALCLUSTER_CACHE") or Path.home() / ".cache" / "quartermaster")
    return root / f"kube-{v['KUBERNETES']}-kueue-{v['KUEUE']}-kwok-{v['KWOK']}-etcd-{v['ETCD']}"


def is_built() -> bool:
    return (install_dir() / ".complete").exists()


def ensure_built() -> Path:
    """Build the binaries unless this version set is already in the cache."""
    if not is_built():
        subprocess.run(["bash", str(HERE / "build.sh")], check=True, stdout=subprocess.DEVNULL)
    return install_dir()


def binary(name: str) -> Path:
    return install_dir() / "bin" / name


def module_dir(name: str) -> Path:
    """``KUEUE`` or ``KWOK``: that module's source folder in the Go module cache."""
    return Path(_read_env_file(install_dir() / "modules.env")[f"{name}_MODULE_DIR"])


def go_module_dir(module: str, version: str) -> Path:
    """A module's source folder in the Go module cache, downloaded if missing."""
    found = subprocess.run(
        ["go", "mod", "download", "-json", f"{module}@{version}"],
        capture_output=True,
        text=True,
        check=True,
        cwd=HERE,
    )
    return Path(json.loads(found.stdout)["Dir"])


def kueue_crd_dir() -> Path:
    """Kueue's CRDs as the pinned Kueue release ships them (config/components/crd/bases)."""
    return go_module_dir("sigs.k8s.io/kueue", versions()["KUEUE"]) / "config/components/crd/bases"
