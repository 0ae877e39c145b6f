"""Domain errors of accounts: a machine-readable ``code``, the ``field`` at fault, a message."""

from __future__ import annotations


class AccountError(Exception):
    """An account change broke a rule; nothing was written."""

    def __init__(self, code: str, message: str, *, field: str | None = None):
        self.code, self.message, self.field = code, message, field
        super().__init__(message)


class TokenError(AccountError):
    """A token request broke a rule; nothing was written."""
