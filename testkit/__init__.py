"""The test kit: what every test package shares, in one place.

Plain helpers (factories, clients, clusters, workers, Prometheus, waiting, ports) are
imported from ``testkit.*``; fixtures live in ``testkit.fixtures`` and are registered once
by the root ``conftest.py``, so tests ask for them by name. Test-only code: no product
module imports it (tests/ops/test_test_kit.py).
"""
