"""The launcher's terminal: one status line redrawn in place on a TTY, a few plain lines
elsewhere, and messages that never break the status line."""

from __future__ import annotations

import io

from portal.terminal import CLEAR_LINE, Terminal, plain_is_due


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_tty_the_status_line_is_redrawn_in_place():
    screen = Tty()
    terminal = Terminal(screen)
    terminal.status("day 1 of 7 (0 %)", 0)
    terminal.status("day 2 of 7 (14 %)", 14)
    terminal.say("worker+beat exited with exit code 1; restarting it in 1 s")
    terminal.end_status()
    terminal.say("stopping…")

    assert screen.getvalue() == (
        f"{CLEAR_LINE}day 1 of 7 (0 %)"
        f"{CLEAR_LINE}day 2 of 7 (14 %)"
        # the message takes the status line's place, and the status line is drawn below it
        f"{CLEAR_LINE}worker+beat exited with exit code 1; restarting it in 1 s\n"
        "day 2 of 7 (14 %)"
        # ended: it stays as it was, and what follows goes below it
        "\nstopping…\n"
    )


def test_elsewhere_the_status_is_a_plain_line_every_quarter():
    log = io.StringIO()
    terminal = Terminal(log)
    for percent in (0, 4, 24, 25, 26, 49, 50, 99, 100, 100):
        terminal.status(f"{percent} %", percent)

    # 99 is the first one past 75; 100 is the end
    assert log.getvalue().splitlines() == ["0 %", "25 %", "50 %", "99 %", "100 %"]
    assert "\r" not in log.getvalue()


def test_a_plain_line_is_due_first_then_each_quarter_and_at_the_end():
    assert plain_is_due(3, None)
    assert not plain_is_due(24, 3)
    assert plain_is_due(25, 24)
    assert plain_is_due(100, 99)  # the last one, though 99 and 100 share a quarter
    assert not plain_is_due(100, 100)
