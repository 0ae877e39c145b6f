"""Serve plotly.js from the installed ``plotly`` package, pinned in requirements.

The Python package ships the same minified bundle the browser needs, so the
portal never fetches it from a CDN and nothing is vendored into the repository.
"""

from pathlib import Path

import plotly
from django.contrib.staticfiles.finders import BaseFinder
from django.core.files.storage import FileSystemStorage

PLOTLY_STATIC_NAME = "vendor/plotly.min.js"


def _bundle_dir() -> Path:
    return Path(plotly.__file__).resolve().parent / "package_data"


class PlotlyFinder(BaseFinder):
    """Exposes ``plotly.min.js`` as ``vendor/plotly.min.js``."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.storage = FileSystemStorage(location=str(_bundle_dir()))
        self.storage.prefix = "vendor"

    def check(self, **kwargs: object) -> list:
        return []

    def find(self, path: str, find_all: bool = False, **kwargs: object) -> str | list[str]:
        if path != PLOTLY_STATIC_NAME:
            return [] if find_all else ""
        match = str(_bundle_dir() / "plotly.min.js")
        return [match] if find_all else match

    def list(self, ignore_patterns: list[str] | None):
        yield "plotly.min.js", self.storage
