"""The one module that imports the ``kubernetes`` client.

Everything else speaks plain dicts through ``KubeClient``: get, list, create,
merge-patch and delete of any resource by ``ResourceRef``. Failures come out as
``KubeError`` carrying the verb, the resource and the API server's message,
already classified as temporary (retry with backoff) or permanent (show it).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode

import urllib3
from django.conf import settings
from kubernetes import client as k8s_client
from kubernetes import config as k8s_config
from kubernetes.config.config_exception import ConfigException

from core import rbac
from core.errors import Unavailable
from core.observability import metrics

FIELD_MANAGER = "quartermaster"
MERGE_PATCH = "application/merge-patch+json"
# 409 (someone wrote in between), 429 and the 5xx family clear up on their own.
LIST_PAGE_SIZE = 500
LIST_RESTARTS = 2  # times a list whose continue token expired (410) starts over
TRANSIENT_CODES = frozenset({0, 408, 409, 429, 500, 502, 503, 504})


@dataclass(frozen=True)
class ResourceRef:
    """Where a kind is served: ``/apis/{group}/{version}/{plural}`` (core: ``/api/v1``)."""

    group: str
    version: str
    plural: str
    kind: str
    namespaced: bool

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    def path(self, namespace: str = "", name: str = "") -> str:
        root = f"/apis/{self.group}/{self.version}" if self.group else f"/api/{self.version}"
        scope = f"/namespaces/{quote(namespace)}" if self.namespaced and namespace else ""
        tail = f"/{quote(name)}" if name else ""
        return f"{root}{scope}/{self.plural}{tail}"


NAMESPACE_TERMINATING = "NamespaceTerminating"  # a cause in the API server's 403 Status


class KubeError(Exception):
    """A failed API call. ``transient`` errors are retried; the rest are shown to people."""

    def __init__(self, *, code: int, reason: str, message: str, verb: str, resource: str):
        self.code, self.reason, self.message = code, reason, message
        self.verb, self.resource = verb, resource
        super().__init__(self.describe())

    @property
    def transient(self) -> bool:
        # A namespace being deleted refuses new objects with a 403, but it is no missing
        # permission: the namespace comes back (the reconciler recreates it) and a retry works.
        return self.code in TRANSIENT_CODES or self.reason == NAMESPACE_TERMINATING

    def describe(self) -> str:
        if self.code == 0:
            return f"cluster unreachable ({self.verb} {self.resource}): {self.message}"
        if self.reason == NAMESPACE_TERMINATING:
            return f"{self.verb} {self.resource}: its namespace is being deleted ({self.message})"
        if self.code == 403:
            return (
                f"forbidden: the portal's service account may not {self.verb} {self.resource}; "
                f"grant that verb in its RBAC role ({self.message})"
            )
        return f"{self.code} {self.reason} on {self.verb} {self.resource}: {self.message}"

    def as_domain_error(self) -> Unavailable:
        # Its ``code`` is the HTTP status Kubernetes answered, so it is no DomainError
        # itself; the API answers it as one (``core.api_errors``).
        return Unavailable(self.describe())


class NotConfigured(KubeError):
    def __init__(self, message: str):
        super().__init__(code=0, reason="NotConfigured", message=message, verb="", resource="")

    @property
    def transient(self) -> bool:
        return False

    def describe(self) -> str:
        return f"no cluster configured: {self.message}"


def _configuration() -> k8s_client.Configuration:
    configuration = k8s_client.Configuration()
    path = settings.KUBECONFIG
    try:
        if path:
            k8s_config.load_kube_config(config_file=path, client_configuration=configuration)
        else:
            k8s_config.load_incluster_config(client_configuration=configuration)
    except (ConfigException, OSError) as exc:
        raise NotConfigured(str(exc)) from None
    # Our own backoff (in the task) retries; urllib3 retrying underneath would only
    # hide outages and stretch every failed call.
    configuration.retries = False
    configuration.connection_pool_maxsize = max(4, settings.QM_RECONCILE_CONCURRENCY)
    return configuration


class KubeClient:
    """A thin JSON client for any resource; one per reconcile run.

    Only calls declared in ``core.rbac`` go out (the deployed ClusterRole grants
    exactly those); test helpers that play the cluster's other users turn
    ``enforce_rbac`` off.
    """

    enforce_rbac = True

    def __init__(self, configuration: k8s_client.Configuration | None = None):
        self._api = k8s_client.ApiClient(configuration or _configuration())
        self._timeout = settings.QM_KUBE_TIMEOUT_SECONDS

    def close(self) -> None:
        self._api.close()

    def __enter__(self) -> KubeClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def get(self, ref: ResourceRef, name: str, namespace: str = "") -> dict | None:
        """The object, or None when it does not exist."""
        try:
            return self._call("GET", ref, "get", ref.path(namespace, name))
        except KubeError as exc:
            if exc.code == 404:
                return None
            raise

    def list(
        self, ref: ResourceRef, *, label_selector: str = "", field_selector: str = ""
    ) -> list[dict]:
        return self.list_with_version(
            ref, label_selector=label_selector, field_selector=field_selector
        )[0]

    def list_with_version(
        self, ref: ResourceRef, *, label_selector: str = "", field_selector: str = ""
    ) -> tuple[list[dict], str]:
        """Items and the list's ``resourceVersion`` (where a watch should start).

        Read in pages of ``LIST_PAGE_SIZE``: one unpaged list of a busy cluster's Events or
        Workloads is a response of hundreds of megabytes for the API server to build. A
        continue token that expired mid-way (410) restarts the list, as Kubernetes asks.
        """
        query = {"labelSelector": label_selector} if label_selector else {}
        if field_selector:
            query["fieldSelector"] = field_selector
        for attempt in range(LIST_RESTARTS + 1):
            try:
                items, version = self._all_pages(ref, query)
            except KubeError as exc:
                if exc.code != 410 or attempt == LIST_RESTARTS:
                    raise
                continue
            return [{**i, "apiVersion": ref.api_version, "kind": ref.kind} for i in items], version
        raise AssertionError("unreachable")

    def _all_pages(self, ref: ResourceRef, query: dict) -> tuple[list[dict], str]:
        items, token = [], ""
        while True:
            page = {**query, "limit": LIST_PAGE_SIZE, **({"continue": token} if token else {})}
            body = self._call("GET", ref, "list", ref.path(), query=page)
            items += body["items"]
            metadata = body.get("metadata") or {}
            token = metadata.get("continue") or ""
            if not token:
                return items, metadata.get("resourceVersion", "")

    def watch(
        self,
        ref: ResourceRef,
        *,
        resource_version: str = "",
        timeout_seconds: int = 60,
        label_selector: str = "",
    ) -> Iterator[dict]:
        """Stream ``{"type", "object"}`` events until the server ends the stream.

        Bookmarks are requested. A 410 (too old resource version, as a status or an
        ERROR event) raises ``KubeError`` with ``code == 410``; a dropped connection
        raises a transient ``KubeError`` (code 0). ``core.watching`` builds the
        resumable loop on top of this.
        """
        query = {"watch": "true", "allowWatchBookmarks": "true"}
        query["timeoutSeconds"] = str(max(1, int(timeout_seconds)))
        if resource_version:
            query["resourceVersion"] = resource_version
        if label_selector:
            query["labelSelector"] = label_selector
        resource = f"{ref.plural}.{ref.group}" if ref.group else ref.plural
        if self.enforce_rbac and not rbac.is_allowed(ref.group, ref.plural, "watch"):
            raise _undeclared(ref, ref.plural, "watch", resource)
        response = self._open(ref.path(), query, timeout_seconds + self._timeout, resource)
        try:
            for line in _lines(response, resource):
                event = json.loads(line)
                if event.get("type") == "ERROR":
                    status = event.get("object") or {}
                    code = int(status.get("code") or 500)
                    raise _error(code, json.dumps(status).encode(), "watch", resource)
                yield event
        finally:
            response.release_conn()

    def _open(self, path: str, query: dict, read_timeout: float, resource: str):
        url_path = f"{path}?{urlencode(query)}"
        headers = {"Accept": "application/json"}
        _, url, headers, _, _ = self._api.param_serialize(
            "GET", url_path, header_params=headers, auth_settings=["BearerToken"]
        )
        try:
            response = self._api.call_api(
                "GET", url, headers, None, _request_timeout=(self._timeout, read_timeout)
            )
        except (urllib3.exceptions.HTTPError, OSError) as exc:
            raise KubeError(
                code=0, reason="Unreachable", message=str(exc), verb="watch", resource=resource
            ) from None
        if not 200 <= response.status < 300:
            raise _error(response.status, response.read(), "watch", resource)
        return response.response

    def create(self, ref: ResourceRef, obj: dict, *, dry_run: bool = False) -> dict:
        """Create; ``dry_run`` runs validation and admission webhooks and stores nothing."""
        namespace = obj["metadata"].get("namespace", "")
        query = {"dryRun": "All"} if dry_run else None
        return self._call("POST", ref, "create", ref.path(namespace), query=query, body=obj)

    def patch(
        self, ref: ResourceRef, name: str, patch: dict, namespace: str = "", *, dry_run=False
    ) -> dict:
        """JSON merge patch; a ``metadata.resourceVersion`` in it makes it conditional.

        ``dry_run``: the server validates and runs its admission webhooks, storing nothing."""
        path = ref.path(namespace, name)
        query = {"dryRun": "All"} if dry_run else None
        return self._call(
            "PATCH", ref, "patch", path, query=query, body=patch, content_type=MERGE_PATCH
        )

    def delete(
        self, ref: ResourceRef, name: str, namespace: str = "", *, propagation: str = ""
    ) -> None:
        """Delete; an object that is already gone counts as deleted.

        ``propagation`` (``Background``/``Foreground``/``Orphan``) picks what happens to
        dependants; batch/v1 Jobs orphan their pods unless told otherwise.
        """
        query = {"propagationPolicy": propagation} if propagation else None
        try:
            self._call("DELETE", ref, "delete", ref.path(namespace, name), query=query)
        except KubeError as exc:
            if exc.code != 404:
                raise

    def _call(
        self,
        method: str,
        ref: ResourceRef,
        verb: str,
        path: str,
        *,
        query: dict | None = None,
        body: Any = None,
        content_type: str = "application/json",
    ) -> Any:
        resource = f"{ref.plural}.{ref.group}" if ref.group else ref.plural
        rbac_resource = _rbac_resource(ref, path)
        if self.enforce_rbac and not rbac.is_allowed(ref.group, rbac_resource, verb):
            raise _undeclared(ref, rbac_resource, verb, resource)
        query = dict(query or {})
        if method in ("POST", "PATCH"):
            query["fieldManager"] = FIELD_MANAGER
        url_path = f"{path}?{urlencode(query)}" if query else path
        headers = {"Accept": "application/json", "Content-Type": content_type}
        _, url, headers, body, _ = self._api.param_serialize(
            method, url_path, header_params=headers, body=body, auth_settings=["BearerToken"]
        )
        try:
            with metrics.KUBE_REQUEST_DURATION.labels(ref.group, rbac_resource, verb).time():
                response = self._api.call_api(
                    method, url, headers, body, _request_timeout=self._timeout
                )
                data = response.read()
        except (urllib3.exceptions.HTTPError, OSError) as exc:
            metrics.KUBE_REQUESTS.labels(ref.group, rbac_resource, verb, "0").inc()
            raise KubeError(
                code=0, reason="Unreachable", message=str(exc), verb=verb, resource=resource
            ) from None
        metrics.KUBE_REQUESTS.labels(ref.group, rbac_resource, verb, str(response.status)).inc()
        if not 200 <= response.status < 300:
            raise _error(response.status, data, verb, resource)
        return json.loads(data) if data else None


def _rbac_resource(ref: ResourceRef, path: str) -> str:
    """``plural``, or ``plural/subresource`` when the path goes below an object's name."""
    tail = path.split("?", 1)[0].split(f"/{ref.plural}/", 1)
    if len(tail) == 2 and "/" in tail[1]:
        return f"{ref.plural}/{tail[1].split('/', 1)[1]}"
    return ref.plural


def _undeclared(ref: ResourceRef, rbac_resource: str, verb: str, resource: str) -> KubeError:
    return KubeError(
        code=403,
        reason="Undeclared",
        message=(
            f"{verb} {rbac_resource} (group {ref.group or 'core'!r}) is not declared in "
            "core/rbac.py; add it there and regenerate the ClusterRole"
        ),
        verb=verb,
        resource=resource,
    )


def _lines(response, resource: str) -> Iterator[bytes]:
    """Newline-delimited JSON lines of a streamed (chunked) response."""
    buffer = b""
    try:
        for chunk in response.stream(65536):
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                if line.strip():
                    yield line
    except (urllib3.exceptions.HTTPError, OSError) as exc:
        raise KubeError(
            code=0, reason="Disconnected", message=str(exc), verb="watch", resource=resource
        ) from None
    if buffer.strip():
        yield buffer


def _error(code: int, data: bytes, verb: str, resource: str) -> KubeError:
    try:
        status = json.loads(data)
    except ValueError:
        status = {}
    message = status.get("message") or data.decode("utf-8", "replace")[:500]
    reason = status.get("reason") or "Unknown"
    causes = (status.get("details") or {}).get("causes") or ()
    if any(cause.get("reason") == NAMESPACE_TERMINATING for cause in causes):
        reason = NAMESPACE_TERMINATING
    return KubeError(code=code, reason=reason, message=message, verb=verb, resource=resource)
