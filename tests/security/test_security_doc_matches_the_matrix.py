"""docs/security.md's authorization table says exactly what the matrix tests: every row
of the doc is a row of ``MATRIX`` and every row of ``MATRIX`` is in the doc, with the
same statuses per persona. A failure prints the lines to paste or delete."""

from __future__ import annotations

import json
from pathlib import Path

from tests.security.test_authorization_matrix import ANON, FORM, MATRIX, POLICY

DOC = Path(__file__).resolve().parents[2] / "docs" / "security.md"
HEADER = (
    "| URL name | Request | Body | anonymous | scientist | other lead | lead | admin | launcher |"
)
UNTESTED, REFUSED = "—", "refused"
BODIES = {POLICY: "a policy change", FORM: "the queue edit form"}


def describe_body(body) -> str:
    """A row's body as the doc shows it: ``decision=reject, comment=no``.

    A line break inside a value is written ``\\n`` so the row stays one line of the table."""
    if isinstance(body, str):
        return BODIES[body]
    if not body:
        return ""
    text = ", ".join(f"{key}={one_line(value)}" for key, value in body.items())
    return f"`{text}`"


def one_line(value) -> str:
    """A body value as one line of text: strings as typed, line breaks as ``\\n``."""
    return value.replace("\n", "\\n") if isinstance(value, str) else json.dumps(value)


def statuses(expected) -> list[str]:
    if expected == ANON:  # only anonymous callers and tokens are tried
        return [REFUSED, UNTESTED, UNTESTED, UNTESTED, UNTESTED, REFUSED]
    return [str(status) for status in expected]


def matrix_lines() -> list[str]:
    """Every row of the matrix, as a line of the doc's table."""
    lines = []
    for name, rows in MATRIX.items():
        for method, url, body, expected in rows:
            cells = [f"`{name}`", f"`{method.upper()} {url}`", describe_body(body)]
            lines.append("| " + " | ".join(cells + statuses(expected)) + " |")
    return lines


def doc_lines() -> list[str]:
    """The rows of the doc's table (after its header and rule), normalised."""
    text = DOC.read_text().splitlines()
    assert HEADER in text, f"docs/security.md has no table headed {HEADER}"
    start = text.index(HEADER) + 2
    rows = []
    for line in text[start:]:
        if not line.startswith("|"):
            break
        rows.append("| " + " | ".join(cell.strip() for cell in line.strip("|").split("|")) + " |")
    return rows


def test_every_row_of_the_doc_is_tested():
    untested = [line for line in doc_lines() if line not in matrix_lines()]
    assert not untested, "docs/security.md claims rows the matrix does not test:\n" + "\n".join(
        untested
    )


def test_every_row_of_the_matrix_is_in_the_doc():
    missing = [line for line in matrix_lines() if line not in doc_lines()]
    assert not missing, "add these rows to docs/security.md's table:\n" + "\n".join(missing)


def test_the_doc_lists_each_row_once():
    lines = doc_lines()
    assert len(lines) == len(set(lines))
