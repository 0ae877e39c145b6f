"""Domain errors raised by services; the UI and the API render them alike."""

from __future__ import annotations


class PolicyError(Exception):
    """Input broke one or more rules. ``errors`` maps a field path to messages.

    Field paths follow the API body: ``fair_weight``, ``quotas[2].nominal``,
    ``preemption.borrow_within_cohort``. Nothing has been written.
    """

    def __init__(self, errors: dict[str, list[str]]):
        self.errors = errors
        fields = ", ".join(sorted(errors))
        super().__init__(f"invalid input in {fields}")

    @classmethod
    def single(cls, field: str, message: str) -> PolicyError:
        return cls({field: [message]})


class ConflictError(Exception):
    """The object changed since the version the caller edited."""

    def __init__(self, current_version: int, changes: list[dict]):
        self.current_version = current_version
        self.changes = changes
        super().__init__(
            "this queue was changed by someone else since you opened it "
            f"(now version {current_version}); review their changes and save again"
        )


class NotAllowed(Exception):
    """The actor may not perform this action."""
