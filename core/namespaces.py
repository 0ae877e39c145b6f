"""Namespaces the portal must never be given nor write into: the cluster's own and its own.

``QM_PROTECTED_NAMESPACES`` (patterns such as ``kube-*``) plus ``QM_PORTAL_NAMESPACE``.
The catalog refuses them for teams, job submission refuses them, and the reconciler
drops any object in them from its plan whatever the database says (legacy rows).
"""

from __future__ import annotations

from collections.abc import Iterable
from fnmatch import fnmatchcase

from django.conf import settings

EXAMPLE = "team-vision"


def protected_patterns() -> tuple[str, ...]:
    """The deny-list as configured now (read per call so ``override_settings`` works)."""
    return (*settings.QM_PROTECTED_NAMESPACES, settings.QM_PORTAL_NAMESPACE)


def matches(name: str, patterns: Iterable[str]) -> bool:
    """Pure: whether ``name`` matches one of the shell-style ``patterns``."""
    return any(fnmatchcase(name, pattern) for pattern in patterns)


def is_protected(name: str) -> bool:
    return matches(name, protected_patterns())


def protected_error(name: str) -> str | None:
    """Why ``name`` cannot be a team namespace, or None when it can."""
    if not is_protected(name):
        return None
    listed = ", ".join(protected_patterns())
    return (
        f"{name!r} is a system namespace the portal never uses (protected: {listed}); "
        f"give the team a namespace of its own, e.g. {EXAMPLE!r}"
    )
