from django.urls import path, register_converter

from apps.reports import views


class IsoWeek:
    regex = r"\d{4}-W\d{2}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(IsoWeek, "isoweek")
app_name = "reports"

urlpatterns = [
    path("", views.index, name="index"),
    path("trend/", views.trend, name="trend"),
    path("glossary/", views.glossary, name="glossary"),
    path("usage/", views.usage, name="usage"),
    path("<isoweek:week>/", views.week_page, name="week"),
    path("<isoweek:week>/report.json", views.week_json, name="week-json"),
    path("<isoweek:week>/report.csv", views.week_csv, name="week-csv"),
]
