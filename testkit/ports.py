"""Free loopback ports for the servers a test starts (Prometheus, a private Redis)."""

import socket


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
