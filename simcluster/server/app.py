"""The running simulated cluster: HTTP server, state, hooks and lifecycle."""

from __future__ import annotations

import logging
import secrets
import sys
import threading
from collections.abc import Callable
from http.server import ThreadingHTTPServer
from pathlib import Path

from simcluster.server import errors, kubeconfig, snapshot, visibility
from simcluster.server.dispatch import Request, Response
from simcluster.server.handler import ApiHandler
from simcluster.server.hooks import Counters, Faults
from simcluster.server.operations import Cluster, Target, WriteOptions
from simcluster.server.resources import NAMESPACES

log = logging.getLogger(__name__)
DEFAULT_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")
HookExtension = Callable[[Request, tuple[str, ...]], Response]


def no_metrics() -> Response:
    """``/metrics`` until a controller registers a provider."""
    raise errors.path_not_found()


class _HttpServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    # Watches are long-lived; don't let them block shutdown.
    block_on_close = False

    def handle_error(self, request, client_address) -> None:
        # A client hanging up (watch closed, process stopped) is routine, not a crash.
        if isinstance(sys.exc_info()[1], ConnectionError):
            log.debug("client %s went away", client_address)
            return
        super().handle_error(request, client_address)


class SimServer:
    """A simulated API server: ``.url``, ``.cluster``, ``.counters``, ``.faults``, ``.stop()``.

    ``pending_provider`` is the hook the admission engine replaces to fill
    the visibility API (see ``visibility.PendingProvider``). A live controller
    (``simcluster.controller``) also sets ``metrics_provider`` (``/metrics``),
    adds ``hook_extensions`` (``/simcluster/<name>/...``) and ``on_stop``
    callbacks.
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        token: str | None = None,
        require_token: bool = False,
        kubeconfig_out: str | Path | None = None,
        snapshot_path: str | Path | None = None,
        snapshot_interval: float = 30.0,
        bookmark_interval: float = 10.0,
        cluster: Cluster | None = None,
    ) -> None:
        self.cluster = cluster or Cluster()
        self.counters = Counters()
        self.faults = Faults()
        self.pending_provider: visibility.PendingProvider = visibility.no_pending
        self.metrics_provider: Callable[[], Response] = no_metrics
        self.hook_extensions: dict[str, HookExtension] = {}
        self.on_stop: list[Callable[[], None]] = []
        self.token = token if token is not None else secrets.token_urlsafe(24)
        # kubectl (client-go) never sends a bearer token over plain http, so
        # enforcing it would lock kubectl out; it is opt-in for client-only use.
        self.require_token = require_token
        self.bookmark_interval = bookmark_interval
        self.snapshot_path = Path(snapshot_path) if snapshot_path else None
        self._saver: snapshot.PeriodicSaver | None = None
        self._load_state(snapshot_interval)
        self._httpd = _HttpServer((host, port), ApiHandler)
        self._httpd.app = self  # type: ignore[attr-defined]
        self.host, self.port = self._httpd.server_address[:2]
        self.url = f"http://{self.host}:{self.port}"
        self.kubeconfig_path = (
            kubeconfig.write(kubeconfig_out, self.url, self.token) if kubeconfig_out else None
        )
        self._thread: threading.Thread | None = None
        self._stopped = threading.Event()

    def _load_state(self, snapshot_interval: float) -> None:
        if self.snapshot_path and snapshot.load(self.cluster.store, self.snapshot_path):
            log.info("restored state from %s", self.snapshot_path)
        self._ensure_namespaces()
        if self.snapshot_path:
            self._saver = snapshot.PeriodicSaver(
                self.cluster.store, self.snapshot_path, snapshot_interval
            )
            self._saver.start()

    def _ensure_namespaces(self) -> None:
        for name in DEFAULT_NAMESPACES:
            if self.cluster.store.get(NAMESPACES.key, ("", name)) is None:
                body = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
                self.cluster.create(
                    Target(NAMESPACES, "v1"), body, WriteOptions(field_manager="simcluster")
                )

    def save_snapshot(self) -> bool:
        """Write the snapshot now; False when no snapshot file is configured."""
        if self._saver is None:
            return False
        self._saver.save_now()
        return True

    def serve_forever(self) -> None:
        self._httpd.serve_forever(poll_interval=0.2)

    def start(self) -> SimServer:
        """Serve on a daemon thread and return self."""
        self._thread = threading.Thread(
            target=self.serve_forever, name="simcluster-http", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, end open watches, save the snapshot (idempotent)."""
        if self._stopped.is_set():
            return
        self._stopped.set()
        for callback in self.on_stop:
            callback()
        self.cluster.store.close()
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread:
            self._thread.join(timeout=5)
        if self._saver:
            self._saver.stop()

    def __enter__(self) -> SimServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def start_server(port: int = 0, host: str = "127.0.0.1", **options: object) -> SimServer:
    """Start a server in-process on a background thread (for tests and the engine)."""
    return SimServer(host, port, **options).start()  # type: ignore[arg-type]
