"""One name, one role (issue #27): within an app (``apps/<name>``) or a top-level
package, no two modules share a file name unless they play the same role.

Two ``history.py`` or ``eta.py`` in one app make every import a guess at which one
is meant. A name may repeat only where the house gives it one meaning: the names in
``SAME_ROLE_NAMES``, and a subject's tables beside its writes (``models/x.py`` and
``services/x.py``, the rooms every app has), and a test-kit subject's helpers beside the
fixtures that hand them out (``testkit/x.py`` and ``testkit/fixtures/x.py``). Migrations are numbered by Django and
management commands are named by the command line, so neither is checked.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parents[2]
NOT_OURS = {"var", "node_modules"}  # runtime data and downloaded packages

SAME_ROLE_NAMES = {
    "__init__.py": "a package's own module",
    "conftest.py": "pytest reads fixtures from this name in each test folder",
    "urls.py": "an app's pages and its api/ each route their own views",
    "views.py": "an app's pages and its api/: one set of requests, two audiences",
}
# A subject's tables and its writes: models/launchers.py beside services/launchers.py.
ROOMS = frozenset({"models", "services"})


def package_of(path: PurePosixPath) -> str:
    """``apps/<app>`` for an app's module, else the top-level package."""
    return "/".join(path.parts[:2]) if path.parts[0] == "apps" else path.parts[0]


def is_exempt(path: PurePosixPath) -> bool:
    parts = path.parts
    commands = any(parts[i : i + 2] == ("management", "commands") for i in range(len(parts)))
    return len(parts) < 2 or "migrations" in parts or commands


def same_role(name: str, paths: list[PurePosixPath]) -> bool:
    if name in SAME_ROLE_NAMES:
        return True
    if len(paths) == 2 and {path.parent.name for path in paths} == ROOMS:
        return True
    return {str(path.parent) for path in paths} == {"testkit", "testkit/fixtures"}


def clashes(paths: Iterable[PurePosixPath]) -> list[str]:
    """One line per file name that means two things in one package, naming every copy."""
    by_name: dict[tuple[str, str], list[PurePosixPath]] = defaultdict(list)
    for path in paths:
        if not is_exempt(path):
            by_name[(package_of(path), path.name)].append(path)
    return sorted(
        f"{package}: {name} at {', '.join(str(p) for p in sorted(found))}"
        for (package, name), found in by_name.items()
        if len(found) > 1 and not same_role(name, found)
    )


def our_modules(root: Path = ROOT) -> list[PurePosixPath]:
    tops = [
        top
        for top in root.iterdir()
        if top.is_dir() and not top.name.startswith(".") and top.name not in NOT_OURS
    ]
    return [
        PurePosixPath(path.relative_to(root).as_posix())
        for top in tops
        for path in top.rglob("*.py")
        if "__pycache__" not in path.parts
    ]


def test_no_module_name_means_two_things_in_one_package():
    modules = our_modules()
    assert PurePosixPath("apps/whatif/replay/start_estimates.py") in modules  # it looked
    assert clashes(modules) == []


def test_two_modules_of_one_app_with_one_name_are_a_clash():
    paths = [PurePosixPath(p) for p in ("apps/whatif/eta.py", "apps/whatif/replay/eta.py")]
    assert clashes(paths) == [
        "apps/whatif: eta.py at apps/whatif/eta.py, apps/whatif/replay/eta.py"
    ]


def test_a_third_copy_beside_a_subjects_tables_and_writes_is_a_clash():
    names = ("apps/jobs/pool.py", "apps/jobs/models/pool.py", "apps/jobs/services/pool.py")
    assert len(clashes(PurePosixPath(p) for p in names)) == 1


def test_top_level_packages_are_checked_like_apps():
    names = ("simcluster/controller/history.py", "simcluster/server/history.py")
    assert clashes(PurePosixPath(p) for p in names) == [
        "simcluster: history.py at simcluster/controller/history.py, simcluster/server/history.py"
    ]


def test_same_role_names_rooms_other_packages_and_generated_names_pass():
    names = (
        "apps/jobs/models/launchers.py",
        "apps/jobs/services/launchers.py",
        "apps/jobs/urls.py",
        "apps/jobs/api/urls.py",
        "tests/e2e/conftest.py",
        "tests/faults/conftest.py",
        "apps/jobs/demo.py",
        "apps/queues/demo.py",
        "apps/reports/report.py",
        "apps/reports/management/commands/report.py",
        "apps/jobs/migrations/0001_initial.py",
        "apps/jobs/tests/migrations/0001_initial.py",
        "manage.py",
    )
    assert clashes(PurePosixPath(p) for p in names) == []
