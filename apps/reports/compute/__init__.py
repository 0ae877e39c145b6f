"""Pure computations of the weekly report, one module per section.

Inputs are plain dataclasses (``records``) with times as Unix seconds (floats),
so a test can build a synthetic week by hand and a loader can stream a real one
from the database. Nothing here touches the database, the network or the clock.
"""
