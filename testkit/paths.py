"""Where the repository is, for tests that run its commands or read its files."""

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
