"""docs/configuration.md lists exactly the variables the settings read."""

import re
from pathlib import Path

from portal.env import REGISTRY

DOC = Path(__file__).resolve().parents[2] / "docs" / "configuration.md"


def documented() -> set[str]:
    return set(re.findall(r"^\| `([A-Z_][A-Z0-9_]*)` \|", DOC.read_text(), flags=re.M))


def test_every_variable_read_is_documented_and_vice_versa():
    import portal.gunicorn  # noqa: F401  gunicorn's own variables
    import portal.settings  # noqa: F401  reading settings fills the registry

    assert documented() == set(REGISTRY)
