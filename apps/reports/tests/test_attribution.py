"""Which workload a pod's samples belong to (pure; numbers worked out by hand)."""

from __future__ import annotations

from apps.reports.attribution import Attributor, Candidate

RUN = ((0.0, 100.0, "h100"),)
TRAIN = Candidate("uid-train", "team-vision", "train", RUN)
TRAIN_2 = Candidate("uid-train-2", "team-vision", "train-2", RUN)


def test_without_ownership_the_longest_fitting_owner_name_wins():
    who = Attributor([TRAIN, TRAIN_2])
    assert who.locate("team-vision", "train-x7k2p", 10) == ("uid-train", "h100")
    assert who.locate("team-vision", "train-2-z9x4m", 10) == ("uid-train-2", "h100")


def test_recorded_ownership_beats_the_name():
    who = Attributor([TRAIN, TRAIN_2], {("team-vision", "train-2-k8f3q"): "train"})
    assert who.locate("team-vision", "train-2-k8f3q", 10) == ("uid-train", "h100")


def test_a_pod_owned_by_something_we_did_not_record_is_nobodys():
    who = Attributor([TRAIN], {("team-vision", "train-q1w2e"): "someone-else"})
    assert who.locate("team-vision", "train-q1w2e", 10) is None


def test_samples_outside_every_run_and_other_namespaces_are_dropped():
    who = Attributor([TRAIN])
    assert who.locate("team-vision", "train-x7k2p", 100) is None  # the run ended at 100
    assert who.locate("team-nlp", "train-x7k2p", 10) is None
