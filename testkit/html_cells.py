"""Read a page's tables as text, to assert the figures a person sees."""

from __future__ import annotations

from html.parser import HTMLParser


class _Tables(HTMLParser):
    """Rows as (is_header_row, [cell text]); a row of <th> only is a header."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[tuple[bool, list[str]]] = []
        self._cell: list[str] | None = None
        self._all_th = True

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append((True, []))
        elif tag in ("td", "th") and self.rows:
            self._cell = []
            if tag == "td":
                self.rows[-1] = (False, self.rows[-1][1])

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1][1].append(" ".join("".join(self._cell).split()))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def row_starting(html: str, *cells: str) -> dict[str, str]:
    """The first table row whose leading cells are ``cells``, keyed by the header row above."""
    parser = _Tables()
    parser.feed(html)
    header: list[str] = []
    for is_header, row in parser.rows:
        if is_header:
            header = row
        elif tuple(row[: len(cells)]) == cells:
            return dict(zip(header, row, strict=False))
    raise AssertionError(f"no row starting with {cells}: {[r for _, r in parser.rows]}")
