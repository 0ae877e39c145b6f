"""The checkpoint volume's settings refuse bad values at start-up, naming the variable.

Real variable names only: reading one registers it, and every registered name must be
documented (test_configuration_doc).
"""

from __future__ import annotations

import pytest

from portal.env import ConfigError, env_namespace, env_object_name, env_storage_size


@pytest.mark.parametrize("value", ["cephfs-rwx", "nfs.example.org", "a"])
def test_a_storage_class_name_is_kept(monkeypatch, value):
    monkeypatch.setenv("QM_CHECKPOINT_STORAGE_CLASS", value)
    assert env_object_name("QM_CHECKPOINT_STORAGE_CLASS", "") == value


@pytest.mark.parametrize("value", ["CephFS", "-rwx", "rwx-", "a_b", "a" * 254])
def test_a_bad_storage_class_name_stops_start_up(monkeypatch, value):
    monkeypatch.setenv("QM_CHECKPOINT_STORAGE_CLASS", value)
    with pytest.raises(ConfigError, match="QM_CHECKPOINT_STORAGE_CLASS=.*e.g. 'cephfs-rwx'"):
        env_object_name("QM_CHECKPOINT_STORAGE_CLASS", "")


@pytest.mark.parametrize("value", ["100Gi", "1Ti", "500G", "1073741824"])
def test_a_storage_size_is_kept(monkeypatch, value):
    monkeypatch.setenv("QM_CHECKPOINT_VOLUME_SIZE", value)
    assert env_storage_size("QM_CHECKPOINT_VOLUME_SIZE", "100Gi") == value


@pytest.mark.parametrize("value", ["0Gi", "1.5Ti", "100GB", "-1Gi", "lots"])
def test_a_bad_storage_size_stops_start_up(monkeypatch, value):
    monkeypatch.setenv("QM_CHECKPOINT_VOLUME_SIZE", value)
    with pytest.raises(ConfigError, match="QM_CHECKPOINT_VOLUME_SIZE=.*e.g. '500Gi'"):
        env_storage_size("QM_CHECKPOINT_VOLUME_SIZE", "100Gi")


def test_a_namespace_is_still_checked_the_same_way(monkeypatch):
    monkeypatch.setenv("QM_PORTAL_NAMESPACE", "Bad_NS")
    with pytest.raises(ConfigError, match="e.g. 'gpu-portal'"):
        env_namespace("QM_PORTAL_NAMESPACE", "x")
