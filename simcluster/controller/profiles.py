"""Deterministic GPU utilisation profiles (annotation ``simcluster/utilization``).

* ``"85"`` — constant 85 %;
* ``"idle"`` — 0 % (a notebook nobody uses);
* ``"steady:70"`` — 70 % with a little noise (±4, changes every 30 s);
* ``"bursty"`` — 30-minute cycles: ~90 % for 12 minutes, ~15 % otherwise.

Noise comes from a hash of (seed, 30-second slot), so the same GPU at the
same instant always reads the same value, live or backfilled.
"""

from __future__ import annotations

import zlib

DEFAULT_PROFILE = "steady:70"
NOISE_SLOT_MS = 30_000
BURST_CYCLE_MS = 30 * 60_000
BURST_HIGH_MS = 12 * 60_000


def noise(seed: str, at_ms: int, amplitude: float) -> float:
    """A reproducible value in [-amplitude, amplitude]."""
    digest = zlib.crc32(f"{seed}/{at_ms // NOISE_SLOT_MS}".encode())
    return (digest % 2001 / 1000 - 1) * amplitude


def utilization(profile: str, seed: str, at_ms: int) -> float:
    """GPU utilisation in percent (0-100) for ``profile`` at ``at_ms``."""
    kind, _, arg = (profile or DEFAULT_PROFILE).strip().partition(":")
    if kind == "idle":
        return 0.0
    if kind == "bursty":
        phase = (at_ms + zlib.crc32(seed.encode())) % BURST_CYCLE_MS
        base = 90.0 if phase < BURST_HIGH_MS else 15.0
        return _clamp(base + noise(seed, at_ms, 5))
    if kind == "steady":
        return _clamp(_number(arg, 70.0) + noise(seed, at_ms, 4))
    return _clamp(_number(kind, 70.0))


def _number(text: str, default: float) -> float:
    try:
        return float(text)
    except ValueError:
        return default


def _clamp(value: float) -> float:
    return round(min(100.0, max(0.0, value)))
