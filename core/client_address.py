"""Who is on the other end of a request: the address rate limits and sign-in lockouts count.

``X-Forwarded-For`` is only as good as whoever wrote it. Each proxy appends the address
of the peer it heard from, so reading the header from the right, every entry up to and
including the first one that is not a trusted proxy was written by a proxy we trust;
anything further left came from the client and may be made up. A peer that is not a
trusted proxy speaks for itself: its header is ignored altogether.
"""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Iterable

from django.conf import settings

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

# What a request whose peer has no IP address (a UNIX socket, a test harness) counts as.
UNKNOWN = "unknown"


def client_address(remote_addr: str, forwarded_for: str, trusted: Iterable[Network]) -> str:
    """The client's address given the peer's, its ``X-Forwarded-For`` and the trusted proxies."""
    trusted = tuple(trusted)
    peer = parse_address(remote_addr)
    if peer is None:
        return UNKNOWN
    nearest = peer
    if _is_trusted(peer, trusted):
        for entry in reversed(forwarded_for.split(",")):
            hop = parse_address(entry)
            if hop is None:
                # A trusted proxy never writes garbage, so it came from further out:
                # the last address a trusted proxy vouched for is as far as we can see.
                break
            nearest = hop
            if not _is_trusted(hop, trusted):
                break
    return str(nearest)


def parse_address(text: str) -> Address | None:
    """An IP address out of a header entry (``1.2.3.4``, ``1.2.3.4:80``, ``[::1]:80``)."""
    text = text.strip()
    if text.startswith("["):
        text = text[1:].partition("]")[0]
    elif text.count(":") == 1:
        text = text.partition(":")[0]  # IPv4 with a port
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    # A dual-stack socket reports IPv4 peers as ::ffff:a.b.c.d; count them as IPv4.
    mapped = getattr(address, "ipv4_mapped", None)
    return mapped or address


def _is_trusted(address: Address, trusted: tuple[Network, ...]) -> bool:
    return any(address in network for network in trusted)


def counted_as(address: str) -> str:
    """What rate limits and lockouts count for an address: itself for IPv4, its /64 for IPv6.

    One IPv6 host is routinely given a whole /64, so counting single addresses would let it
    take a fresh one for every guess.
    """
    parsed = parse_address(address)
    if isinstance(parsed, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((int(parsed) >> 64 << 64, 64)))
    return address


@functools.lru_cache(maxsize=8)
def trusted_networks(entries: tuple[str, ...]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(entry) for entry in entries)


def request_client_address(request) -> str:
    """The client address of a Django or DRF request, under ``QM_TRUSTED_PROXIES``."""
    return client_address(
        request.META.get("REMOTE_ADDR", ""),
        request.META.get("HTTP_X_FORWARDED_FOR", ""),
        trusted_networks(tuple(settings.QM_TRUSTED_PROXIES)),
    )
