"""The client address believes X-Forwarded-For only as far as trusted proxies wrote it."""

import pytest

from core.client_address import UNKNOWN, client_address, trusted_networks

PROXIES = trusted_networks(("10.0.0.0/8", "2001:db8::/32", "192.0.2.7/32"))


def test_a_spoofed_header_from_an_untrusted_peer_is_ignored():
    assert client_address("203.0.113.9", "1.2.3.4", PROXIES) == "203.0.113.9"
    assert client_address("203.0.113.9", "10.0.0.1, 1.2.3.4", ()) == "203.0.113.9"


def test_without_trusted_proxies_the_peer_is_the_client():
    assert client_address("10.1.2.3", "198.51.100.4", ()) == "10.1.2.3"


def test_a_trusted_proxy_names_the_client():
    assert client_address("10.1.2.3", "198.51.100.4", PROXIES) == "198.51.100.4"


def test_a_chain_of_trusted_proxies_is_walked_from_the_right():
    # The client claimed 1.1.1.1; the outer proxy (192.0.2.7) heard 198.51.100.4.
    header = "1.1.1.1, 198.51.100.4, 192.0.2.7, 10.9.9.9"
    assert client_address("10.1.2.3", header, PROXIES) == "198.51.100.4"


def test_cidr_membership_decides_trust():
    assert client_address("10.255.0.1", "198.51.100.4", PROXIES) == "198.51.100.4"
    assert client_address("11.0.0.1", "198.51.100.4", PROXIES) == "11.0.0.1"
    assert client_address("192.0.2.8", "198.51.100.4", PROXIES) == "192.0.2.8"


def test_ipv6_peers_and_hops():
    assert (
        client_address("2001:db8::1", "2001:0db8:0:0::5, 2a00:1450::1", PROXIES) == "2a00:1450::1"
    )
    assert client_address("2a00:1450::1", "198.51.100.4", PROXIES) == "2a00:1450::1"
    assert client_address("2001:db8::1", "[2a00:1450::2]:443", PROXIES) == "2a00:1450::2"


def test_ipv4_mapped_peers_count_as_ipv4():
    assert client_address("::ffff:10.1.2.3", "198.51.100.4", PROXIES) == "198.51.100.4"
    assert client_address("::ffff:203.0.113.9", "", PROXIES) == "203.0.113.9"


def test_ports_on_hops_are_dropped():
    assert client_address("10.1.2.3", "198.51.100.4:51234", PROXIES) == "198.51.100.4"


@pytest.mark.parametrize(
    "header, expected",
    [
        ("", "10.1.2.3"),  # a trusted proxy that added nothing: it is the client
        ("not-an-address", "10.1.2.3"),
        ("198.51.100.4, <script>", "10.1.2.3"),  # garbage nearest us: stop at the proxy
        ("<script>, 198.51.100.4", "198.51.100.4"),  # garbage beyond the client: irrelevant
        (",,, ,", "10.1.2.3"),
        ("10.0.0.5, 10.0.0.6", "10.0.0.5"),  # all trusted: the farthest one we can vouch for
        ("x" * 10_000, "10.1.2.3"),
        ("ünïcode, 198.51.100.4", "198.51.100.4"),
    ],
)
def test_garbage_never_becomes_the_client(header, expected):
    assert client_address("10.1.2.3", header, PROXIES) == expected


def test_a_peer_without_an_address_is_unknown():
    assert client_address("", "198.51.100.4", PROXIES) == UNKNOWN
