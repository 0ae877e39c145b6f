"""Fetch a cursor's next chunk on a second thread while the caller works on this one."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor


def chunks_ahead(fetch: Callable[[], list]) -> Iterator[list]:
    """The chunks ``fetch()`` returns until an empty one, each next one already
    requested when the current one is handed over: the database computes and sends it
    (the socket wait releases the GIL) while the caller's thread processes the one
    before. ``fetch`` must be the only user of its connection until this ends."""
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="read-ahead") as pool:
        pending = pool.submit(fetch)
        while rows := pending.result():
            pending = pool.submit(fetch)
            yield rows
