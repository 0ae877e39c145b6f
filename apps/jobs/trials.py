"""A sweep's trials, as pure functions: expand a parameter list or grid, render a trial's
command, and count trials by how far they got."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass

from apps.jobs.choices import JobState
from core.errors import RuleBroken

MAX_TRIALS = 500
MAX_VALUE_LENGTH = 200
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,62}$")
LIST_EXAMPLE = '[{"lr": "0.1", "seed": 1}, {"lr": "0.01", "seed": 1}]'
GRID_EXAMPLE = '{"lr": ["0.1", "0.01"], "seed": [1, 2, 3]}'


def expand_trials(parameters: list | None, grid: dict | None) -> list[dict[str, str]]:
    """One dict of ``name → value`` per trial, from a list (as given) or a grid (every
    combination, names in sorted order, the last name varying fastest)."""
    if (parameters is None) == (grid is None):
        raise RuleBroken(
            f"give exactly one of parameters (a list of trials, e.g. {LIST_EXAMPLE}) or "
            f"grid (values per name, e.g. {GRID_EXAMPLE})",
            code="invalid",
            field="parameters",
        )
    return _from_list(parameters) if grid is None else _from_grid(grid)


def _from_list(parameters) -> list[dict[str, str]]:
    if not isinstance(parameters, list):
        raise RuleBroken(
            f"parameters is a list of trials, e.g. {LIST_EXAMPLE}",
            code="invalid",
            field="parameters",
        )
    if not 1 <= len(parameters) <= MAX_TRIALS:
        raise RuleBroken(
            f"a sweep has 1–{MAX_TRIALS} trials; this list has {len(parameters)}",
            code="invalid",
            field="parameters",
        )
    trials = []
    for index, trial in enumerate(parameters):
        if not isinstance(trial, dict) or not trial:
            raise RuleBroken(
                f"parameters[{index}] is an object of at least one name → value, "
                f'e.g. {{"lr": "0.1"}}',
                code="invalid",
                field="parameters",
            )
        where = f"parameters[{index}]"
        trials.append(
            {
                _name(n, "parameters", where): _value(v, "parameters", where)
                for n, v in trial.items()
            }
        )
    return trials


def _from_grid(grid) -> list[dict[str, str]]:
    if not isinstance(grid, dict) or not grid:
        raise RuleBroken(
            f"grid is an object of name → list of values, e.g. {GRID_EXAMPLE}",
            code="invalid",
            field="grid",
        )
    names = sorted(grid)
    axes = []
    for name in names:
        values = grid[name]
        if not isinstance(values, list) or not values:
            raise RuleBroken(
                f"grid.{name} is a non-empty list of values, e.g. {GRID_EXAMPLE}",
                code="invalid",
                field="grid",
            )
        axes.append([_value(v, "grid", f"grid.{name}") for v in values])
        _name(name, "grid", "grid")
    size = 1
    for axis in axes:
        size *= len(axis)
    if size > MAX_TRIALS:
        raise RuleBroken(
            f"a sweep has 1–{MAX_TRIALS} trials; this grid makes {size}",
            code="invalid",
            field="grid",
        )
    return [dict(zip(names, combination, strict=True)) for combination in itertools.product(*axes)]


def _name(name, field: str, where: str) -> str:
    if not isinstance(name, str) or not _NAME.match(name):
        raise RuleBroken(
            f"{where}: parameter name {name!r} must be a letter then up to 62 letters, digits, "
            "'_', '.' or '-', e.g. learning_rate",
            code="invalid",
            field=field,
        )
    return name


def _value(value, field: str, where: str) -> str:
    # bool is an int to Python, but "--flag=True" is rarely what anyone meant.
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise RuleBroken(
            f'{where}: values are strings or numbers, e.g. "0.1" or 32',
            code="invalid",
            field=field,
        )
    text = str(value)
    if not 1 <= len(text) <= MAX_VALUE_LENGTH:
        raise RuleBroken(
            f"{where}: a value is 1–{MAX_VALUE_LENGTH} characters",
            code="invalid",
            field=field,
        )
    return text


def trial_command(base: Iterable[str], parameters: dict[str, str]) -> list[str]:
    """The base command with one ``--name=value`` argument per parameter, in name order."""
    return [*base, *(f"--{name}={parameters[name]}" for name in sorted(parameters))]


@dataclass(frozen=True)
class Progress:
    """How far a sweep's trials got. ``waiting`` counts trials not yet released and those
    released but not admitted; ``cancelled`` ones are neither done nor failed."""

    done: int
    running: int
    waiting: int
    failed: int
    cancelled: int

    @property
    def total(self) -> int:
        return self.done + self.running + self.waiting + self.failed + self.cancelled


RUNNING = (JobState.ADMITTED, JobState.RUNNING)
WAITING = (JobState.SUBMITTED, JobState.QUEUED)


def progress(trial_states: Iterable[str], *, trials: int, cancelled_sweep: bool) -> Progress:
    """Count ``trials`` by the states of the released ones; after a cancel, the trials
    never released count as cancelled rather than waiting."""
    states = list(trial_states)
    unreleased = trials - len(states)
    return Progress(
        done=states.count(JobState.SUCCEEDED),
        running=sum(s in RUNNING for s in states),
        waiting=sum(s in WAITING for s in states) + (0 if cancelled_sweep else unreleased),
        failed=states.count(JobState.FAILED),
        cancelled=states.count(JobState.CANCELLED) + (unreleased if cancelled_sweep else 0),
    )
