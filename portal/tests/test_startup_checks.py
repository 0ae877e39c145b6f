"""The start-up check refuses a broker visibility timeout that a task's time limit outlasts."""

from django.core.checks import run_checks


def _errors() -> list[str]:
    return [e.msg for e in run_checks(tags=["celery"]) if e.is_serious()]


def test_the_default_settings_pass():
    assert _errors() == []


def test_a_visibility_timeout_below_a_tasks_limit_is_an_error(settings):
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 900}
    (error,) = _errors()
    assert "QM_BROKER_VISIBILITY_TIMEOUT_SECONDS=900" in error
    assert "build_weekly_report_task soft_time_limit=1800" in error


def test_a_global_time_limit_counts_too(settings):
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3600}
    settings.CELERY_TASK_TIME_LIMIT = 7200
    (error,) = _errors()
    assert "QM_BROKER_VISIBILITY_TIMEOUT_SECONDS=3600" in error
    assert "CELERY_TASK_TIME_LIMIT=7200" in error


def test_an_equal_timeout_is_not_enough(settings):
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 1800}
    assert len(_errors()) == 1


def test_the_embedded_broker_has_no_visibility_timeout_to_check(settings):
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {"data_folder_in": "/tmp"}
    assert _errors() == []


def test_fewer_than_three_heartbeat_misses_is_an_error(settings):
    settings.QM_WHATIF_HEARTBEAT_MISSES = 2
    (error,) = _errors()
    assert "QM_WHATIF_HEARTBEAT_MISSES=2 is below 3" in error


def test_a_retired_setting_still_set_is_an_error_naming_its_replacement(monkeypatch):
    monkeypatch.setenv("QM_WHATIF_STUCK_AFTER_SECONDS", "300")
    (error,) = [e for e in run_checks(tags=["celery"]) if e.is_serious()]
    assert error.msg == "QM_WHATIF_STUCK_AFTER_SECONDS is no longer read."
    assert "QM_WHATIF_HEARTBEAT_MISSES" in error.hint


def test_a_heartbeat_of_no_seconds_is_an_error(settings):
    settings.QM_WHATIF_HEARTBEAT_SECONDS = 0.0
    (error,) = _errors()
    assert error == "QM_WHATIF_HEARTBEAT_SECONDS=0 is not above 0."
