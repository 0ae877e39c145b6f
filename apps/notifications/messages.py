"""Subject and text of each kind of notification, from the context given to ``notify``.

Pure: a missing context key renders as ``?`` rather than failing a decision.
"""

from __future__ import annotations

from collections import defaultdict

from apps.notifications.choices import NotificationKind as K

TEMPLATES: dict[str, tuple[str, str]] = {
    K.CHANGE_REQUEST_FILED: (
        "Change request #{change_request} for queue {queue} waits for approval",
        "{requested_by} asks to change queue {queue} beyond team {team}'s envelope:"
        "\n{changes}\nBecause: {beyond}\nReason: {reason}\nDecide at {url}",
    ),
    K.CHANGE_REQUEST_DECIDED: (
        "Change request #{change_request} for queue {queue}: {status}",
        "Your change request #{change_request} for queue {queue} was {status} by {decided_by}."
        "\n{comment}\n{url}",
    ),
    K.JOB_PREEMPTED: (
        "Job {job} was preempted",
        "Your job {job} in queue {queue} was preempted by {preempted_by} "
        "({reason}) and lost {lost}.\n{url}",
    ),
    K.NOTEBOOK_EXPIRING: (
        "Notebook {notebook} stops {when}",
        "Your notebook {notebook} will be {action} {when} ({reason}). "
        "Renew it or save your work.\n{url}",
    ),
    K.NOTEBOOK_ENDED: (
        "Notebook {notebook} was {action}",
        "Your notebook {notebook} was {action} at {when}: {reason}. Its GPUs went back to "
        "the pool; request a new notebook to go on working.\n{url}",
    ),
    K.QUEUE_OUT_OF_SYNC: (
        "Queue {queue} has been out of sync for {minutes} minutes",
        "Queue {queue} has been {state} since {since}: the cluster does not match the "
        "portal's policy.\n{message}\n{url}",
    ),
}


def render(kind: str, context: dict) -> tuple[str, str]:
    subject, body = TEMPLATES[kind]
    values = defaultdict(lambda: "?", {k: "" if v is None else v for k, v in context.items()})
    return subject.format_map(values)[:200], body.format_map(values).strip()
