"""Names of the per-user LocalQueues of a queue that is fair between users.

Pure functions: the reconciler renders these LocalQueues, job submission sends a
user's workloads to theirs and the team page reads their usage, all by the same
name computed from (queue, username).

The name is ``<queue>.<user>-<hash>``: the dot keeps it apart from every queue's
own LocalQueue (queue names are DNS labels, which have no dot), and the hash of
the exact (queue, username) pair keeps two users whose names fold to the same
DNS-safe form apart. It is at most 63 characters, so it also fits the
``kueue.x-k8s.io/queue-name`` label value of the jobs that point at it.
"""

from __future__ import annotations

import hashlib
import re

from apps.queues.names import label_value_error

MAX_NAME = 63  # a label value: jobs carry the LocalQueue name in a label
USER_PART = 20  # characters of the folded username kept in the name
HASH_PART = 8


def _fold(text: str) -> str:
    """``text`` as lowercase letters, digits and single '-', trimmed at both ends."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _digest(queue: str, username: str) -> str:
    return hashlib.sha256(f"{queue}\0{username}".encode()).hexdigest()[:HASH_PART]


def user_local_queue_name(queue: str, username: str) -> str:
    """The LocalQueue of ``username`` for ``queue``, e.g. ``team-a.alice-1f0c9e3b``."""
    user = (_fold(username)[:USER_PART].strip("-") or "user") + "-" + _digest(queue, username)
    head = queue[: MAX_NAME - 1 - len(user)].rstrip("-")
    return f"{head}.{user}"


def user_label_value(username: str) -> str:
    """The ``quartermaster.io/user`` label value: the username itself when it is a valid
    label value, else its folded form with a hash (``@`` and ``+`` are not allowed)."""
    if label_value_error(username) is None:
        return username
    digest = hashlib.sha256(username.encode()).hexdigest()[:HASH_PART]
    return f"{_fold(username)[: MAX_NAME - 1 - HASH_PART].strip('-') or 'user'}-{digest}"


def submission_queue(queue, username: str) -> str:
    """The LocalQueue a workload of ``username`` goes to in ``queue`` (anything with
    ``name`` and ``fair_between_users``): their own when the queue is fair between users,
    else the team's one, named like the queue."""
    if queue.fair_between_users:
        return user_local_queue_name(queue.name, username)
    return queue.name
