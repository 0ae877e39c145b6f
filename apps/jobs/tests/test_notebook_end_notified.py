"""The owner is told when the portal (or an admin) ends their notebook: culled, expired."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.jobs.choices import NotebookState
from apps.jobs.models import Notebook
from apps.jobs.services import (
    NotebookRequest,
    Principal,
    cull_idle_notebooks,
    expire_notebooks,
    request_notebook,
    stop_notebook,
)
from apps.notifications import services as notifications
from apps.notifications.choices import NotificationKind
from apps.notifications.models import Notification
from core import prometheus as metrics
from testkit.notebooks import IMAGE, delivered

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("scientist_mail")]
T0 = timezone.now().replace(second=0, microsecond=0)


def ready(user, *, at, ttl: int = 8, name: str = "") -> Notebook:
    spec = NotebookRequest(image=IMAGE, flavor="h100", ttl_hours=ttl)
    notebook = request_notebook(user, spec, actor=Principal(user), now=at).record
    rows = Notebook.objects.filter(pk=notebook.pk)
    rows.update(name=name or notebook.name, state=NotebookState.READY, ready_at=at)
    return rows.get()


def ended_mail() -> list:
    ended = Notification.objects.filter(kind=NotificationKind.NOTEBOOK_ENDED)
    return [m for m in delivered() if m.subject in set(ended.values_list("subject", flat=True))]


def test_an_idle_notebook_culled_from_prometheus_data_tells_its_owner_once(
    prometheus, settings, scientist, pool
):
    settings.PROMETHEUS_URL = prometheus.url
    end = prometheus.end_time
    notebook = ready(scientist, at=end - timedelta(hours=2), name="nb-idle")
    cull_idle_notebooks(metrics.peak_gpu_utilization(60, at=end), now=end)  # the warning
    later = end + timedelta(minutes=16)
    assert cull_idle_notebooks(metrics.peak_gpu_utilization(60, at=later), now=later)["culled"]
    cull_idle_notebooks(metrics.peak_gpu_utilization(60, at=later), now=later)  # nothing more
    (message,) = ended_mail()
    assert message.to == ["sci@example.org"]
    assert message.subject == "Notebook nb-idle was culled"
    # Culled at `later`, for the reason the page shows (the idle-culling test spells it out).
    assert f"was culled at {later:%Y-%m-%d %H:%M} UTC: idle: GPU utilisation peaked at 1.0%" in (
        message.body
    )
    assert f"https://portal.example.org/notebooks/{notebook.pk}/" in message.body


def test_an_expired_notebook_tells_its_owner(scientist, pool):
    notebook = ready(scientist, at=T0, ttl=1)
    due = T0 + timedelta(hours=1)
    assert expire_notebooks(now=due + timedelta(minutes=1))["stopped"] == 1
    (message,) = ended_mail()
    assert message.subject == f"Notebook {notebook.name} was stopped"
    assert f"expired at {due:%Y-%m-%d %H:%M} UTC" in message.body


def test_an_admin_stopping_it_is_named_but_the_owner_stopping_it_is_not_news(
    scientist, admin, pool
):
    by_admin = ready(scientist, at=T0)
    stop_notebook(by_admin, actor=Principal(admin), reason="maintenance")
    by_owner = ready(scientist, at=T0)
    stop_notebook(by_owner, actor=Principal(scientist))
    (message,) = ended_mail()
    assert message.subject == f"Notebook {by_admin.name} was stopped by {admin.username}"
    assert ": maintenance." in message.body


def test_a_muted_owner_is_not_told(scientist, pool):
    notifications.save_preferences(
        scientist,
        actor=scientist,
        email_enabled=True,
        muted_kinds=[NotificationKind.NOTEBOOK_ENDED],
    )
    ready(scientist, at=T0, ttl=1)
    assert expire_notebooks(now=T0 + timedelta(hours=2))["stopped"] == 1
    assert not Notification.objects.filter(kind=NotificationKind.NOTEBOOK_ENDED).exists()
