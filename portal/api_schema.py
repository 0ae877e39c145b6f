"""What every operation in ``/api/schema/`` shares, added once after drf-spectacular.

- **Errors.** Any operation may answer 400, 401, 403, 404, 409, 413, 415, 422 or 429
  with the one error body (``core.api_errors``); the schema says so, so clients and
  schemathesis' conformance checks know every status they can meet.
- **Links.** OpenAPI links from the answer that names an object to the operations on
  it: a create (201/202) to its detail, update, delete and actions; a list to the
  first listed object's; a queue edit filed for approval (202) to the change request.
  Clients can follow them; ``tests/security/test_api_fuzz.py`` drives create → read →
  update → delete chains through them.
"""

from __future__ import annotations

import re
from typing import Any

ERROR_REF = {"$ref": "#/components/schemas/Error"}
ERROR_STATUSES = {
    "400": "Invalid input: `code` says which rule, `field` which input.",
    "401": "No valid credentials.",
    "403": "Not allowed to do this.",
    "404": "Not found (or not yours).",
    "409": "Conflicts with the current state.",
    "413": "Body too large.",
    "415": "Unsupported media type.",
    "422": "Well-formed but refused (e.g. a reused Idempotency-Key).",
    "429": "Too many requests.",
}
PARAM = re.compile(r"\{(\w+)\}")


def postprocess(result: dict, generator, request, public) -> dict:
    """drf-spectacular postprocessing hook (``SPECTACULAR_SETTINGS``)."""
    paths = result.get("paths", {})
    for operations in paths.values():
        for operation in operations.values():
            _document_errors(operation["responses"])
    for source_path, operations in paths.items():
        for method, operation in operations.items():
            for status, body_path in _sources(method, operation):
                _link(result, operation["responses"][status], source_path, body_path)
    _link_change_requests(result)
    return result


def _document_errors(responses: dict) -> None:
    for status, description in ERROR_STATUSES.items():
        response = responses.setdefault(status, {"description": description})
        response.setdefault("content", {"application/json": {"schema": ERROR_REF}})


def _sources(method: str, operation: dict) -> list[tuple[str, str]]:
    """(status, JSON pointer prefix) of the answers that name one object."""
    responses = operation["responses"]
    if method == "post":
        return [(s, "") for s in ("201", "202") if s in responses]
    if method == "get" and "200" in responses:
        return [("200", "/results/0")]
    return []


def _link(result: dict, response: dict, source_path: str, body_path: str) -> None:
    """Links from ``response`` (at ``source_path``) to every operation one level below."""
    if PARAM.search(source_path):
        return  # only collections name their members
    item = _item_schema(result, response, body_path)
    for target_path, operations in result["paths"].items():
        rest = target_path.removeprefix(source_path)
        match = PARAM.match(rest)
        if rest == target_path or match is None or match.start() != 0:
            continue
        name = match.group(1)
        if name not in item.get("properties", {}):
            continue
        for operation in operations.values():
            links = response.setdefault("links", {})
            links[operation["operationId"]] = {
                "operationId": operation["operationId"],
                "parameters": {name: f"$response.body#{body_path}/{name}"},
            }


def _link_change_requests(result: dict) -> None:
    """A queue edit beyond the envelope answers 202 with the change request it filed."""
    paths = result["paths"]
    for method in ("put", "patch"):
        operation = paths.get("/api/v1/queues/{id}/", {}).get(method)
        if operation is None or "202" not in operation["responses"]:
            continue
        response = operation["responses"]["202"]
        for target_path, operations in paths.items():
            if not target_path.startswith("/api/v1/change-requests/{id}/"):
                continue
            for target in operations.values():
                response.setdefault("links", {})[target["operationId"]] = {
                    "operationId": target["operationId"],
                    "parameters": {"id": "$response.body#/id"},
                }


def _item_schema(result: dict, response: dict, body_path: str) -> dict[str, Any]:
    schema = response.get("content", {}).get("application/json", {}).get("schema", {})
    schema = _resolve(result, schema)
    if body_path:
        results = _resolve(result, schema.get("properties", {}).get("results", {}))
        schema = _resolve(result, results.get("items", {}))
    return schema


def _resolve(result: dict, schema: dict) -> dict:
    while "$ref" in schema:
        schema = result["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema
