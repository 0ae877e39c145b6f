"""Pure: a what-if's money (``replay.money``) as the rows of the results page's table.

Per team one row per flavor, then the team's sum when it has several flavors, then
the total. Each row has twelve cells: for idle reserved quota, lost work, borrowing
and their sum (cost), now, with the draft and the change.
"""

from __future__ import annotations

from apps.whatif.replay.money import KINDS

SIDES = ("current", "proposed", "change")
COLUMNS = (*KINDS, "cost")


def money_rows(money: dict) -> list[dict]:
    rows = []
    for team in money.get("teams") or []:
        for flavor in team["flavors"]:
            rows.append(_row(team["team"], flavor["flavor"], flavor))
        if len(team["flavors"]) > 1:
            rows.append(_row(team["team"], "all flavors", team, total=True))
    if money.get("teams"):
        rows.append(_row("Total", "all flavors", money["total"], total=True))
    return rows


def _row(team: str, flavor: str, figures: dict, *, total: bool = False) -> dict:
    return {
        "team": team,
        "flavor": flavor,
        "total": total,
        "cells": [_cell(figures[side], kind) for kind in COLUMNS for side in SIDES],
    }


def _cell(figures: dict, kind: str) -> dict:
    """Dollars (None: no price) and, but for the cost, the GPU-hours they price."""
    if kind == "cost":
        return {"usd": figures["cost_usd"], "gpu_hours": None}
    return {"usd": figures[f"{kind}_usd"], "gpu_hours": figures[f"{kind}_gpu_hours"]}
