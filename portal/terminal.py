"""What `make run` shows in its terminal: messages for people, and one status line.

Children's output (web server, worker, cluster, the start-up commands) goes to the log
file instead (``open_log``), so the URL and logins do not scroll away. The status line
(the demo week's progress) is redrawn in place with a carriage return when the terminal
is a TTY; when output goes to a file or a pipe it is printed as a plain line only when
it has moved on by ``PLAIN_STEP`` percent, so a log of the launcher stays short.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import IO

PLAIN_STEP = 25  # percent between two plain status lines when not on a TTY
CLEAR_LINE = "\r\x1b[K"


def open_log(path: Path) -> IO[bytes]:
    """The log file every child writes to, appended to across starts."""
    path.parent.mkdir(parents=True, exist_ok=True)
    return path.open("ab", buffering=0)


def plain_is_due(percent: int, last_shown: int | None) -> bool:
    """Whether a non-TTY terminal gets a new status line: the first, each ``PLAIN_STEP``
    percent further, and the last."""
    if last_shown is None:
        return True
    reached_the_end = percent == 100 and last_shown < 100
    return reached_the_end or percent // PLAIN_STEP > last_shown // PLAIN_STEP


class Terminal:
    """Messages (``say``) and one updating status line (``status``), from any thread."""

    def __init__(self, stream: IO[str] | None = None) -> None:
        self.stream = stream or sys.stdout
        self.tty = self.stream.isatty()
        self._status = ""  # the status line on screen now (TTY only)
        self._last_plain: int | None = None
        self._lock = threading.Lock()

    def say(self, text: str) -> None:
        """A message on lines of its own; the status line is redrawn below it."""
        with self._lock:
            if self._status:
                self.stream.write(CLEAR_LINE)
            self.stream.write(text + "\n")
            if self._status:
                self.stream.write(self._status)
            self.stream.flush()

    def status(self, text: str, percent: int) -> None:
        with self._lock:
            if self.tty:
                self._status = text
                self.stream.write(CLEAR_LINE + text)
            elif plain_is_due(percent, self._last_plain):
                self._last_plain = percent
                self.stream.write(text + "\n")
            self.stream.flush()

    def end_status(self) -> None:
        """The status line stays on screen as it is; messages go below it from now on."""
        with self._lock:
            if self._status:
                self.stream.write("\n")
                self.stream.flush()
            self._status = ""
