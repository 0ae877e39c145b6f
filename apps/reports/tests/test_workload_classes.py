"""Three classes of work and an inference service's availability, computed by hand
from runs written here (pure: no database)."""

from apps.reports.compute.classes import Lifetime, class_gpu_hours, inference_rows
from apps.reports.compute.records import HOUR, Run, WeekInput, run_gpu_hours

H = HOUR
INFERENCE_TIERS = frozenset({"p0-critical"})


def run(uid, tier, gpus, start, end, notebook=False) -> Run:
    return Run(uid, "t", "q", tier, "1", "h100", gpus, start, end, notebook=notebook)


def test_gpu_hours_per_class():
    week = WeekInput(start=0.0, end=168 * H)
    week.runs = [
        run("nb", "p1-high", 1, 0.0, 10 * H, notebook=True),  # interactive: 1 × 10 h = 10
        # inference (a StatefulSet too, but at the inference tier): 2 × 5 h = 10, and
        # 2 × (168 − 160) h = 16 for the run still admitted at the week's end: 26
        run("svc", "p0-critical", 2, 0.0, 5 * H, notebook=True),
        run("svc", "p0-critical", 2, 160 * H, None, notebook=True),
        run("job", "p2-standard", 8, 1 * H, 4 * H),  # batch: 8 × 3 h = 24
    ]
    hours = class_gpu_hours(week.runs, run_gpu_hours(week), INFERENCE_TIERS)
    assert hours == {"interactive": 10.0, "inference": 26.0, "batch": 24.0}


def test_availability_is_the_admitted_share_of_its_lifetime_in_the_week():
    week = WeekInput(start=0.0, end=168 * H)
    # Created at 24 h; queued 1 h; admitted 10 h; evicted 2 h; admitted again to the end.
    week.runs = [
        run("svc", "p0-critical", 2, 25 * H, 35 * H, notebook=True),
        run("svc", "p0-critical", 2, 37 * H, None, notebook=True),
    ]
    alive = Lifetime("svc", "inference", "inf-1", 2, created=24 * H)
    (row,) = inference_rows(week, [alive])
    # Alive 168 − 24 = 144 h; admitted 10 + (168 − 37) = 141 h; 141 / 144 = 0.9791666…
    assert row["alive_hours"] == 144.0
    assert row["admitted_hours"] == 141.0
    assert row["availability"] == 141 / 144


def test_a_service_stopped_last_week_has_no_row_and_one_created_before_counts_from_monday():
    week = WeekInput(start=168 * H, end=336 * H)
    week.runs = [run("old", "p0-critical", 1, 0.0, 100 * H, notebook=True)]
    week.runs.append(run("long", "p0-critical", 1, 10 * H, None, notebook=True))
    gone = Lifetime("old", "inference", "inf-old", 1, created=0.0, finished=100 * H)
    since_before = Lifetime("long", "inference", "inf-long", 1, created=0.0)
    (row,) = inference_rows(week, [gone, since_before])
    # Alive the whole week (168 h) and admitted all of it: 1.0.
    assert (row["service"], row["alive_hours"], row["availability"]) == ("inf-long", 168.0, 1.0)
