import json
import logging

from portal.logging import JsonFormatter, RequestIdFilter


def test_every_response_carries_a_request_id(client):
    generated = client.get("/healthz")["X-Request-ID"]
    assert len(generated) == 32
    assert client.get("/healthz", HTTP_X_REQUEST_ID="abc-123")["X-Request-ID"] == "abc-123"
    assert client.get("/healthz", HTTP_X_REQUEST_ID="bad id\n")["X-Request-ID"] != "bad id\n"


def test_json_log_lines_carry_the_request_id_and_extras():
    record = logging.LogRecord(
        "portal", logging.WARNING, __file__, 1, "drift on %s", ("cq/a",), None
    )
    record.queue = "vision"
    RequestIdFilter().filter(record)
    line = json.loads(JsonFormatter().format(record))
    assert line["message"] == "drift on cq/a"
    assert line["request_id"] == "-" and line["queue"] == "vision" and line["level"] == "WARNING"


def test_the_api_rate_limits_each_user(queue, scientist, settings, throttle_clock):
    from testkit.clients import api_as

    settings.API_RATE_USER = "5/min"
    client = api_as(scientist)
    codes = [client.get("/api/v1/queues/").status_code for _ in range(6)]
    assert codes == [200] * 5 + [429]
