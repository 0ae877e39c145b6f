"""Django's PostgreSQL backend with a health check that costs no round trip.

``CONN_HEALTH_CHECKS`` makes Django run ``SELECT 1`` before the first query of every
request that reuses a persistent connection, so a database restart costs a
reconnect rather than a failed request (``tests/faults``). On the status poll that
check was one of three round trips per request, and every round trip releases and
re-takes the GIL behind the other threads of a gthread worker.

The check here asks the socket instead. An idle connection has nothing to read: a
backend that was terminated (restart, failover, ``pg_terminate_backend``) sends its
FATAL message and closes, which makes the socket readable, or the connection is
already known to be closed or broken. Any of those, or a connection not idle
between transactions, fails the check and Django reconnects, as it does after a
failed ``SELECT 1``. A spurious wake-up (an asynchronous notice) only costs a
reconnect. After an error inside a request Django still runs the real
``is_usable()`` query (``close_if_unusable_or_obsolete``).
"""

from __future__ import annotations

import select

from django.db.backends.postgresql import base
from psycopg.pq import TransactionStatus


class DatabaseWrapper(base.DatabaseWrapper):
    def close_if_health_check_failed(self) -> None:
        if (
            self.connection is None
            or self.pool
            or not self.health_check_enabled
            or self.health_check_done
        ):
            return
        if not self._looks_alive():
            self.close()
        self.health_check_done = True

    def _looks_alive(self) -> bool:
        connection = self.connection
        if connection.closed or connection.broken:
            return False
        if connection.info.transaction_status != TransactionStatus.IDLE:
            return False
        try:
            poller = select.poll()
            poller.register(connection.fileno(), select.POLLIN | select.POLLPRI)
            return not poller.poll(0)
        except (OSError, ValueError):
            return False
