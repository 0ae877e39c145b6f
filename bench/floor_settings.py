"""Settings for bench/notebook_floor.py: the portal's, with a URL conf that adds the floor."""

from portal.settings import *  # noqa: F403

ROOT_URLCONF = "bench.floor_urls"
