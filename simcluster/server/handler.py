"""HTTP plumbing: parse requests, authenticate, apply hooks, write JSON or a watch stream."""

from __future__ import annotations

import hmac
import json
import logging
import select
import socket
import time
from http.server import BaseHTTPRequestHandler
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlsplit

from simcluster.server import errors
from simcluster.server.dispatch import (
    Request,
    Response,
    Stream,
    dispatch_discovery,
    dispatch_openapi,
    dispatch_resource,
    dispatch_visibility,
    request_info,
)
from simcluster.server.hook_routes import describe, dispatch_hooks
from simcluster.server.routing import OtherPath, ResourcePath, route

if TYPE_CHECKING:
    from simcluster.server.app import SimServer

log = logging.getLogger(__name__)
PUBLIC_KINDS = ("hooks", "health", "version", "root", "openapi", "metrics")


class ApiHandler(BaseHTTPRequestHandler):
    """One connection; HTTP/1.1 keep-alive so clients can reuse it."""

    protocol_version = "HTTP/1.1"
    server_version = "simcluster"
    # Headers and body go out in two writes; with Nagle's algorithm on, the body waits
    # for the client's delayed ACK of the headers, 40 ms a response on Linux. Go's
    # net/http (kube-apiserver) sets TCP_NODELAY on every connection too.
    disable_nagle_algorithm = True

    @property
    def app(self) -> SimServer:
        return self.server.app  # type: ignore[attr-defined]

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        log.debug("%s %s", self.address_string(), format % args)

    def do_GET(self) -> None:
        self._handle()

    do_HEAD = do_POST = do_PUT = do_PATCH = do_DELETE = do_GET

    def _read_body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _parse(self) -> Request:
        url = urlsplit(self.path)
        content_type = (self.headers.get("Content-Type") or "").split(";")[0].strip()
        return Request(
            method=self.command,
            route=route(url.path),
            query=dict(parse_qsl(url.query, keep_blank_values=True)),
            body=self._read_body(),
            content_type=content_type,
            user_agent=self.headers.get("User-Agent") or "",
            client_gone=self._client_gone,
        )

    def _handle(self) -> None:
        try:
            request = self._parse()
            outcome = self._outcome(request)
        except errors.ApiError as exc:
            outcome = Response(exc.code, exc.to_status())
        except Exception:  # a bug must answer 500, not kill the connection silently
            log.exception("internal error on %s %s", self.command, self.path)
            outcome = Response(
                500, errors.ApiError(500, "InternalError", "internal error").to_status()
            )
        if isinstance(outcome, Stream):
            self._stream(outcome)
        else:
            self._send(outcome)

    def _authorized(self) -> bool:
        if not self.app.require_token:
            return True
        token = self.app.token
        header = self.headers.get("Authorization") or ""
        return not token or hmac.compare_digest(header.encode(), f"Bearer {token}".encode())

    def _outcome(self, request: Request) -> Response | Stream:
        kind = request.route.kind if isinstance(request.route, OtherPath) else "resource"
        if kind not in PUBLIC_KINDS and not self._authorized():
            raise errors.ApiError(401, "Unauthorized", "Unauthorized")
        info = request_info(request)
        if info is not None:
            self.app.counters.record(info)
            fault = self.app.faults.take(info)
            if fault and fault.latencySeconds:
                time.sleep(fault.latencySeconds)  # injected latency is the point of the fault
            if fault and fault.code:
                return Response(fault.code, fault.status())
        return self._route(request, kind)

    def _route(self, request: Request, kind: str) -> Response | Stream:
        app = self.app
        if isinstance(request.route, ResourcePath):
            return dispatch_resource(app.cluster, request, app.bookmark_interval)
        parts = request.route.parts
        if kind == "hooks":
            if not parts:
                return Response(200, describe())
            extension = app.hook_extensions.get(parts[0])
            if extension is not None:
                return extension(request, parts[1:])
            return dispatch_hooks(
                request, parts, app.cluster, app.counters, app.faults, app.save_snapshot
            )
        if kind == "health":
            return Response(200, {"status": "ok"})
        if kind == "metrics":
            return app.metrics_provider()
        if kind == "visibility":
            return dispatch_visibility(app.cluster, request, app.pending_provider)
        if kind == "openapi":
            return dispatch_openapi(parts)
        return dispatch_discovery(request.route)

    def _send(self, response: Response) -> None:
        payload = response.raw if response.raw is not None else json.dumps(response.body).encode()
        self.send_response(response.code)
        self.send_header("Content-Type", response.content_type)
        self.send_header("Content-Length", str(len(payload)))
        for warning in response.warnings:
            self.send_header("Warning", f'299 - "{warning}"')
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)

    def _stream(self, stream: Stream) -> None:
        """Chunked newline-delimited JSON; a cleanly ended stream leaves the connection reusable."""
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            for event in stream.events:
                line = json.dumps(event).encode() + b"\n"
                self.wfile.write(f"{len(line):x}\r\n".encode() + line + b"\r\n")
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            # The client went away mid-stream: this connection is finished.
            self.close_connection = True

    def _client_gone(self) -> bool:
        """True when the peer closed the connection (readable with no data)."""
        try:
            readable, _, _ = select.select([self.connection], [], [], 0)
            return bool(readable) and self.connection.recv(1, socket.MSG_PEEK) == b""
        except (OSError, ValueError):
            return True
