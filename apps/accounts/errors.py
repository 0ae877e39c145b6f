"""Domain errors of accounts, in the one vocabulary of ``core.errors``."""

from __future__ import annotations

from core.errors import DomainError


class AccountError(DomainError):
    """An account change broke a rule; nothing was written."""

    def __init__(self, code: str, message: str, *, field: str | None = None):
        super().__init__(message, code=code, field=field)


class TokenError(AccountError):
    """A token request broke a rule; nothing was written."""
