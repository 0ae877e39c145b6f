from apps.reports.tests.simrecorder import sim  # noqa: F401 (a fixture)
