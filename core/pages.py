"""Domain errors on pages: form errors and flash messages, the page side of ``core.errors``.

The API side is ``core.api_errors``. A ``NotAllowed`` needs nothing here: it is a
``PermissionDenied``, so a page that lets it through answers 403, its detail shown by
``templates/403.html``. Any other refusal (a domain error whose status is 403) handed to
``show_error`` becomes that same 403: a refusal is never a flash message on a redirect.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from django import forms
from django.contrib import messages
from django.http import HttpRequest

from core.errors import NON_FIELD, DomainError, InvalidInput, NotAllowed

# ``capacity.nvidia.com/gpu`` and ``limits[0].max_nominal`` belong to ``capacity``/``limits``.
LEADING_NAME = re.compile(r"^[a-z_]+")


def add_to_form(
    form: forms.Form,
    exc: DomainError,
    field_for: Callable[[str], str | None] | None = None,
    *,
    repeat_path: bool = True,
) -> None:
    """Put each message of ``exc`` on the form field it is about.

    ``field_for`` maps an error path (``quotas[2].nominal``) to a form field; without
    it, or when it has none, the path's leading name is tried. A message the form has
    no field for goes on the form as a whole, naming its path; with ``repeat_path`` a
    message on a field other than its path names the path too. An error about one
    field (not ``InvalidInput``) has a detail that stands alone: it goes on its field if
    the form has it, else on the form, as it is.
    """
    if not isinstance(exc, InvalidInput):
        form.add_error(exc.field if exc.field in form.fields else None, exc.detail)
        return
    for path, problems in exc.errors.items():
        field = _form_field(form, path, field_for)
        named = path in (NON_FIELD, field) or (field is not None and not repeat_path)
        for problem in problems:
            form.add_error(field, problem if named else f"{path}: {problem}")


def _form_field(form: forms.Form, path: str, field_for) -> str | None:
    field = field_for(path) if field_for else None
    if field is None:
        match = LEADING_NAME.match(path)
        field = match.group(0) if match and match.group(0) in form.fields else None
    return field


def page_messages(exc: DomainError) -> list[str]:
    """One line per field at fault (``quotas[0].nominal: must be …``), else the detail."""
    if not isinstance(exc, InvalidInput):
        return [exc.detail]
    return [
        "; ".join(problems) if path == NON_FIELD else f"{path}: {'; '.join(problems)}"
        for path, problems in exc.errors.items()
    ]


def show_error(request: HttpRequest, exc: DomainError) -> None:
    """Flash ``exc`` on the next page, one message per field at fault; a refusal (403)
    is raised as ``NotAllowed`` instead, so the page answers 403 with its message."""
    if exc.status == 403:
        raise NotAllowed(exc.detail) from exc
    for line in page_messages(exc):
        messages.error(request, line)
