"""Differential testing: the Python admission engine against the real Kueue.

``python -m bench.differential --scenarios 200 --seed 1`` generates random small
scenarios (``scenarios``), runs each on a real control plane (``run_real``) and
through ``kueuemodel`` (``run_engine``), and compares the two ``Outcome``s
(``compare``). See ``FINDINGS.md`` for the differences found so far.
"""
