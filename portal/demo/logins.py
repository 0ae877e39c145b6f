"""The demo's logins: plain data, so the launcher can print them without Django.

They exist only in a database the demo was loaded into (``portal.demo.seeding``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DemoLogin:
    username: str
    password: str
    role: str


LOGINS = [
    DemoLogin("admin", "admin-demo-pass", "platform admin"),
    DemoLogin("vera", "vera-demo-pass", "team lead of vision"),
    DemoLogin("nils", "nils-demo-pass", "team lead of nlp"),
    DemoLogin("alice", "alice-demo-pass", "scientist in vision"),
    DemoLogin("bob", "bob-demo-pass", "scientist in nlp"),
    DemoLogin("ines", "ines-demo-pass", "scientist in inference"),
]
# What ``load_demo``/``seed_demo`` print when the database had users before the demo:
# then there are no demo logins to show.
NEVER_LOADED = "no demo logins: the demo was never loaded into this database"


def login_lines(logins: list[DemoLogin]) -> list[str]:
    """``  admin    / admin-demo-pass    (platform admin)``, one line each."""
    return [f"  {login.username:<8} / {login.password:<18} ({login.role})" for login in logins]
