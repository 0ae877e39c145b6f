"""What the portal is still preparing, for a banner on every page: one small JSON file.

Whoever prepares something behind a running portal (the embedded launcher, while the
demo week is generated and recorded, then its reports built) writes
``<QM_DATA_DIR>/preparing.json`` with ``write`` and removes it with ``clear``; pages read
it with ``read`` (``portal.context_processors.preparing``). The file says only what is
being prepared and how far it is: nothing in it is specific to the simulated cluster. A
missing or unreadable file means nothing is being prepared.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

FILE = "preparing.json"
MAX_TEXT = 200


@dataclass(frozen=True)
class Preparing:
    title: str  # "Preparing the demo week"
    step: str  # "day 3 of 7"
    percent: int  # 0-100
    note: str  # "reports and what-if will be ready when it finishes"

    def __str__(self) -> str:
        return f"{self.title}: {self.step} ({self.percent} %) — {self.note}"


def path(data_dir: Path) -> Path:
    return Path(data_dir) / FILE


def write(data_dir: Path, progress: Preparing) -> None:
    """Replace the record atomically, so a page never reads half a file."""
    target = path(data_dir)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(f".{os.getpid()}.tmp")
    partial.write_text(json.dumps(asdict(progress)))
    partial.replace(target)


def clear(data_dir: Path) -> None:
    path(data_dir).unlink(missing_ok=True)


def read(data_dir: Path) -> Preparing | None:
    try:
        raw = json.loads(path(data_dir).read_text())
        return Preparing(
            title=str(raw["title"])[:MAX_TEXT],
            step=str(raw["step"])[:MAX_TEXT],
            percent=max(0, min(100, int(raw["percent"]))),
            note=str(raw["note"])[:MAX_TEXT],
        )
    except (OSError, ValueError, TypeError, KeyError):
        return None
