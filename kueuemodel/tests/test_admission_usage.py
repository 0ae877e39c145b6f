"""AdmissionFairSharing arithmetic (``kueuemodel.admission_usage``), worked out by hand."""

from __future__ import annotations

from kueuemodel.admission_usage import (
    AdmissionFairSharing,
    LocalQueueUsage,
    catch_up,
    charge_admission,
    decayed,
    entry_penalty,
    parse_admission_fair_sharing,
    weighted,
)

GPU = "nvidia.com/gpu"
REALCLUSTER = AdmissionFairSharing(  # realcluster's opt-in block: 1m half-life, 2 s samples
    half_life_ms=60_000, sampling_ms=2_000, weights={GPU: 100.0, "cpu": 1.0, "memory": 0.0}
)


def test_usage_halves_every_half_life_and_the_current_usage_fills_the_rest():
    # One half-life: 1000m × 0.5 = 500m kept; two: 1000m × 0.25 = 250m.
    assert decayed({GPU: 1000}, {}, 60_000, 60_000) == {GPU: 500}
    assert decayed({GPU: 1000}, {}, 120_000, 60_000) == {GPU: 250}
    # From nothing, one half-life of 2 GPUs running folds in 2000m × 0.5 = 1000m.
    assert decayed({}, {GPU: 2000}, 60_000, 60_000) == {GPU: 1000}
    # No half-life: nothing decays and nothing is folded in (Kueue's α is 0).
    assert decayed({GPU: 700}, {GPU: 1000}, 60_000, 0) == {GPU: 700}


def test_the_entry_penalty_is_one_sample_of_the_request_truncated_to_milli_units():
    # α(2 s, 60 s) = 1 − 0.5^(1/30) = 0.02284; 1000m × 0.02284 = 22.84 → 22m.
    assert entry_penalty({GPU: 1000}, REALCLUSTER) == {GPU: 22}
    # The recommended 5m / 24h: α = 1 − 0.5^(300/86400) = 0.0024; 1000m × 0.0024 → 2m.
    day = AdmissionFairSharing(half_life_ms=86_400_000, sampling_ms=300_000)
    assert entry_penalty({GPU: 1000}, day) == {GPU: 2}


def test_the_compared_figure_weighs_each_resource_in_base_units_and_divides_by_the_queue_weight():
    # 22m GPU × 100 + 2000m cpu × 1 + 64Gi of memory × 0 = 2.2 + 2 + 0 = 4.2.
    consumed = {GPU: 22, "cpu": 2000, "memory": 64 * 2**30 * 1000}
    assert abs(weighted(consumed, REALCLUSTER.weights) - 4.2) < 1e-9
    assert abs(weighted(consumed, REALCLUSTER.weights, 2.0) - 2.1) < 1e-9
    # A resource without a weight counts 1 per unit: 3 cpu → 3.
    assert weighted({"cpu": 3000}, {}) == 3.0


def test_samples_fall_due_every_interval_from_the_last_update():
    usage = LocalQueueUsage({GPU: 22}, last_update_ms=0)
    assert not catch_up(usage, {GPU: 1000}, 1_999, REALCLUSTER)  # no interval has passed
    assert catch_up(usage, {GPU: 1000}, 5_000, REALCLUSTER)
    # Two samples (at 2 s and 4 s), 1 GPU running, α = 0.02284:
    # 22 × 0.97716 = 21.50 → 21, + 1000 × 0.02284 → 22: 43;
    # 43 × 0.97716 = 42.02 → 42, + 22: 64.
    assert usage.consumed == {GPU: 64}
    assert usage.last_update_ms == 4_000  # the next sample is due at 6 s, not at 7 s


def test_a_long_gap_is_folded_as_one_decay_after_the_first_samples():
    # 4 hours of 2 s samples with nothing running: 7200 samples; the figure is what four
    # hours of decay leave of 1000m with a 1 h half-life: 1000 × 0.5^4 = 62.5, less the
    # 64 exact samples' truncation (each loses under 1m): between 0 and 62.
    hourly = AdmissionFairSharing(half_life_ms=3_600_000, sampling_ms=2_000)
    usage = LocalQueueUsage({GPU: 1000}, last_update_ms=0)
    assert catch_up(usage, {}, 4 * 3_600_000, hourly)
    assert 0 < usage.consumed[GPU] <= 62
    assert usage.last_update_ms == 4 * 3_600_000


def test_an_admission_folds_the_time_since_the_last_update_and_adds_its_penalty():
    usage = LocalQueueUsage({GPU: 100}, last_update_ms=0)
    # 60 s after the last update (one half-life), 1 GPU now admitted (the new one):
    # 100 × 0.5 = 50, + 1000 × 0.5 = 500, + penalty 22: 572, and sampling starts afresh.
    charge_admission(usage, {GPU: 1000}, {GPU: 1000}, 60_000, REALCLUSTER)
    assert usage.consumed == {GPU: 572}
    assert usage.last_update_ms == 60_000


def test_the_configuration_block_is_read_with_kueues_default_sampling_interval():
    assert parse_admission_fair_sharing(None) is None
    parsed = parse_admission_fair_sharing(
        {"usageHalfLifeTime": "24h", "resourceWeights": {GPU: 100, "memory": 0}}
    )
    assert parsed == AdmissionFairSharing(
        half_life_ms=86_400_000, sampling_ms=300_000, weights={GPU: 100.0, "memory": 0.0}
    )
