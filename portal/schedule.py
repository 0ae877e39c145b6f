"""Every periodic task in one table, each with the reason it runs."""

from datetime import timedelta

from celery.schedules import crontab
from django.conf import settings

from apps.reports.freshness import FINAL_BUILD_HOUR


def _watch_run(task: str, seconds: int) -> dict:
    """A watch that runs ``seconds`` and hands over to the next run 5 s later; a run
    that could not start in time expires instead of piling up behind the lease."""
    return {
        "task": task,
        "schedule": timedelta(seconds=seconds + 5),
        "options": {"expires": seconds},
    }


def beat_schedule() -> dict:
    schedule = {
        # Change requests nobody decided on go stale; expire them so leads resubmit
        # against the current policy instead of an admin approving old numbers.
        "expire-stale-change-requests": {
            "task": "apps.queues.tasks.expire_stale_change_requests_task",
            "schedule": timedelta(hours=1),
            "options": {"expires": 30 * 60},
        },
        # Notifications whose delivery task was lost (broker down at commit) go out late,
        # not never. Fresh rows are left to the task scheduled on commit.
        "deliver-pending-notifications": {
            "task": "apps.notifications.tasks.deliver_pending_notifications_task",
            "schedule": timedelta(minutes=5),
            "options": {"expires": 5 * 60},
        },
    }
    # Notebook lifetimes: warn before the TTL ends, then stop; the TTL is a promise
    # to the people waiting in the queue, so it is checked every minute.
    schedule["expire-notebooks"] = {
        "task": "apps.jobs.tasks.expire_notebooks_task",
        "schedule": timedelta(minutes=1),
        "options": {"expires": 60},
    }
    # Idle GPUs in notebooks: warn, then cull after the grace period. Utilisation is
    # judged over a window of an hour by default, so every five minutes is plenty.
    cull = settings.QM_CULL_INTERVAL_SECONDS
    schedule["cull-idle-notebooks"] = {
        "task": "apps.jobs.tasks.cull_idle_notebooks_task",
        "schedule": timedelta(seconds=cull),
        "options": {"expires": cull},
    }
    # Start-time predictions are scored against the admissions that happened since,
    # so the ETA shown next to each pending job says how far to trust it.
    schedule["score-eta-predictions"] = {
        "task": "apps.whatif.tasks.score_eta_predictions_task",
        "schedule": timedelta(minutes=5),
        "options": {"expires": 5 * 60},
    }
    # A replay whose worker was killed would show "Replaying…" until the broker hands
    # its message out again (an hour). Looking once per heartbeat interval fails such a
    # run at most one interval after its missed beats make it stuck (docs/whatif.md).
    beat = settings.QM_WHATIF_HEARTBEAT_SECONDS
    schedule["sweep-stuck-whatifs"] = {
        "task": "apps.whatif.tasks.sweep_stuck_whatifs_task",
        "schedule": timedelta(seconds=beat),
        "options": {"expires": beat},
    }
    # Monday 03:00 UTC: store last week's report snapshot (usage from Prometheus is
    # read now, before its retention drops it); pages only read snapshots, so they stay fast.
    schedule["build-weekly-report"] = {
        "task": "apps.reports.tasks.build_weekly_report_task",
        "schedule": crontab(minute=0, hour=FINAL_BUILD_HOUR, day_of_week="mon"),
        "options": {"expires": 6 * 3600},
    }
    # Monday, an hour after that snapshot: propose policy drafts from the last 2–4
    # finished weeks and start their what-ifs, so the suggestions page shows figures
    # by the time leads read the new report (docs/suggestions.md). Never applies one.
    schedule["look-for-suggestions"] = {
        "task": "apps.whatif.tasks.look_for_suggestions_task",
        "schedule": crontab(minute=0, hour=(FINAL_BUILD_HOUR + 1) % 24, day_of_week="mon"),
        "options": {"expires": 6 * 3600},
    }
    # The week in progress, rebuilt from what is recorded so far so its page is never
    # older than this (each page says when it was built and when the next build is due).
    # Expires after one interval: the next run builds the same week from more data.
    rebuild = timedelta(minutes=settings.QM_REPORT_REBUILD_MINUTES)
    schedule["build-current-week-report"] = {
        "task": "apps.reports.tasks.build_current_week_report_task",
        "schedule": rebuild,
        "options": {"expires": rebuild.total_seconds()},
    }
    if settings.QM_HISTORY_RECORDER or (settings.QM_CLUSTER_SYNC and settings.QM_JOBS_WATCH):
        watch = settings.QM_INFORMER_WATCH_SECONDS
        # The one informer: watches Workloads (and our pods, StatefulSets and Jobs) for
        # `watch` seconds for the history recorder and job/notebook status, resumes from
        # the stored resourceVersions and queues the next run itself; this entry restarts
        # that chain if it breaks, and skips (the lease is taken) while it holds.
        schedule["informer"] = _watch_run("informer.tasks.run_informer_task", watch)
    if settings.QM_CLUSTER_SYNC:
        interval = settings.QM_RECONCILE_INTERVAL_SECONDS
        # Level-based repair: reverts out-of-band edits (kubectl edit), finishes
        # held deletions and catches any change whose triggered run was lost.
        # Expires after one interval: a backlog of stale runs would only repeat work.
        schedule["reconcile-kueue"] = {
            "task": "apps.queues.tasks.reconcile_task",
            "schedule": timedelta(seconds=interval),
            "kwargs": {"trigger": "schedule"},
            "options": {"expires": interval},
        }
        # Job and notebook states (queue position, pending reason, Ready URL) read level-
        # based: the safety net under the informer. Also re-creates objects whose creation
        # task was lost.
        sync = settings.QM_JOBS_SYNC_INTERVAL_SECONDS
        schedule["sync-jobs-status"] = {
            "task": "apps.jobs.tasks.sync_jobs_status_task",
            "schedule": timedelta(seconds=sync),
            "options": {"expires": sync},
        }
        # Tell leads and admins about queues stuck out of sync past the threshold
        # (QM_OUT_OF_SYNC_NOTIFY_MINUTES); once per episode, so running often is cheap.
        schedule["notify-out-of-sync-queues"] = {
            "task": "apps.queues.tasks.notify_out_of_sync_queues_task",
            "schedule": timedelta(minutes=5),
            "options": {"expires": 5 * 60},
        }
    return schedule
