"""Errors of the quota policy, in the one vocabulary of ``core.errors``."""

from __future__ import annotations

from core.errors import Conflict, InvalidInput


class PolicyError(InvalidInput):
    """A queue, catalog object or draft policy broke one or more rules (per field)."""


class ConflictError(Conflict):
    """The queue changed since the version the caller edited."""

    def __init__(self, current_version: int, changes: list[dict]):
        super().__init__(
            "this queue was changed by someone else since you opened it "
            f"(now version {current_version}); review their changes and save again",
            current_version=current_version,
            changes=changes,
        )
