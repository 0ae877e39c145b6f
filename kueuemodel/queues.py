"""Per-ClusterQueue pending queue, ordered by priority, then age, then UID.

Workloads are kept in buckets of identical *shape* (requests, selectors,
priority): within one tree state, same-shaped workloads get the same answer
from flavor assignment and preemption. BestEffortFIFO therefore parks a whole
bucket when its head is found inadmissible, and a quota release in the cohort
tree unparks every bucket. That is Kueue's SchedulingEquivalenceHashing (Beta,
off by default in v0.17, on from v0.18). Without it Kueue parks one head per
cycle: a simulation reaches the same state, only later, so the engine hashes by
default and a paced run (``latency.Latency``) can turn hashing off to spend a
cycle per parked workload as Kueue v0.17 does.
StrictFIFO never parks: its head stays head and blocks the queue.

A ClusterQueue with AdmissionFairSharing puts a key before all that: the usage of
the workload's LocalQueue (``admission_order``), lower first. Its buckets are per shape
and LocalQueue, so every workload of a bucket has the same usage and the bucket's own
order stands; only the heap over the buckets' heads is rebuilt (``resort``) when the
usage moves.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from itertools import count

from .model import LOWER_OR_NEWER_EQUAL, ClusterQueue, Workload

_tokens = count()
_Key = tuple
_Entry = tuple[_Key, int, Workload]


_SHAPE_IDS: dict[tuple, int] = {}
"""Every shape seen, numbered: the memos and buckets keyed by shape then hash an int."""


def shape_of(wl: Workload, cq: ClusterQueue) -> int | tuple:
    """Everything flavor assignment and preemption read from a workload (as a number)."""
    if wl.shape is None:
        shape = (
            tuple(
                (
                    ps.name,
                    ps.count,
                    tuple(sorted(ps.per_pod.items())),
                    tuple(sorted(ps.node_selector.items())),
                    ps.tolerations,
                    ps.required_topology,
                    ps.preferred_topology,
                )
                for ps in wl.pod_sets
            ),
            wl.priority,
        )
        wl.shape = _SHAPE_IDS.setdefault(shape, len(_SHAPE_IDS))
    if cq.preemption.within_cluster_queue == LOWER_OR_NEWER_EQUAL:
        return (wl.shape, wl.created_ms, wl.uid)  # age matters: every workload is unique
    return wl.shape


class _Bucket:
    __slots__ = ("heap", "parked", "token", "reason", "key", "alone")

    def __init__(self, key: int | tuple, alone: bool) -> None:
        self.heap: list[_Entry] = []
        self.parked = False
        self.token = 0
        self.reason: tuple[str, str] | None = None
        self.key = key
        self.alone = alone  # one workload's own bucket, never shared


class PendingQueue:
    """Buckets of same-shaped workloads plus a heap over the active buckets' heads."""

    __slots__ = ("_cq", "_hashing", "_usage_of", "_buckets", "_top", "_where")

    def __init__(
        self,
        cq: ClusterQueue,
        equivalence_hashing: bool = True,
        usage_of: Callable[[Workload], float] | None = None,
    ) -> None:
        """``usage_of``: AdmissionFairSharing's usage of a workload's LocalQueue, ordered
        before priority (None: the ClusterQueue does not use it)."""
        self._cq = cq
        self._hashing = equivalence_hashing
        self._usage_of = usage_of
        self._buckets: dict[tuple, _Bucket] = {}
        self._top: list[tuple[_Key, int, int, _Bucket]] = []
        self._where: dict[str, tuple[_Bucket, int]] = {}

    def _key(self, wl: Workload) -> _Key:
        """The order across buckets: usage first where AdmissionFairSharing is on."""
        if self._usage_of is None:
            return wl.order_key()
        return (self._usage_of(wl), *wl.order_key())

    def __len__(self) -> int:
        return len(self._where)

    def __contains__(self, wl: Workload) -> bool:
        return wl.key in self._where

    def push(self, wl: Workload) -> tuple[str, str] | None:
        """Queue ``wl``; return its bucket's parked (reason, message) if parked."""
        self.remove(wl)
        shape = shape_of(wl, self._cq)
        alone = isinstance(shape, tuple)  # shape_of keys some workloads by themselves
        if not self._hashing and not alone:
            shape, alone = (shape, wl.created_ms, wl.uid), True
        elif self._usage_of is not None and not alone:
            shape = (shape, wl.namespace, wl.queue_name)  # one usage per bucket
        bucket = self._buckets.get(shape)
        if bucket is None:
            bucket = self._buckets[shape] = _Bucket(shape, alone)
        entry = (wl.order_key(), next(_tokens), wl)
        self._where[wl.key] = (bucket, entry[1])
        heapq.heappush(bucket.heap, entry)
        if bucket.parked:
            return bucket.reason
        if bucket.heap[0] is entry:
            self._announce(bucket)
        return None

    def _peek(self, bucket: _Bucket) -> _Entry | None:
        heap, where = bucket.heap, self._where
        while heap:
            entry = heap[0]
            if where.get(entry[2].key) == (bucket, entry[1]):
                return entry
            heapq.heappop(heap)
        return None

    def _announce(self, bucket: _Bucket) -> None:
        bucket.token += 1
        entry = self._peek(bucket)
        if entry is not None:
            heapq.heappush(self._top, (self._key(entry[2]), bucket.token, id(bucket), bucket))

    def head(self) -> Workload | None:
        top = self._top
        while top:
            key, token, _, bucket = top[0]
            if bucket.parked or bucket.token != token:
                heapq.heappop(top)
                continue
            entry = self._peek(bucket)
            # A stale key (a new head, or its LocalQueue's usage moved) is announced again.
            if (
                entry is not None
                and (entry[0] if self._usage_of is None else self._key(entry[2])) == key
            ):
                return entry[2]
            heapq.heappop(top)
            self._announce(bucket)
        return None

    def twins_of_head(self) -> list[Workload]:
        """The other pending workloads in the head's bucket (call right after ``head()``)."""
        bucket = self._top[0][3]
        head = self._peek(bucket)[1]
        return [
            e[2]
            for e in bucket.heap
            if e[1] != head and self._where.get(e[2].key) == (bucket, e[1])
        ]

    def park_head(self, reason: str, message: str) -> None:
        """Park the head's whole bucket (call right after ``head()``)."""
        bucket = self._top[0][3]
        bucket.parked = True
        bucket.reason = (reason, message)

    def remove(self, wl: Workload) -> None:
        found = self._where.pop(wl.key, None)
        if found is None:
            return
        bucket = found[0]
        if bucket.parked:
            return  # kept: the same workload queued again stays parked
        if bucket.alone:
            # A bucket of one workload, now empty: drop it, or a long run would
            # keep one for every workload it ever queued.
            del self._buckets[bucket.key]
        else:
            self._announce(bucket)

    def requeue_parked(self) -> bool:
        """Unpark every bucket; True if any was parked."""
        woke = False
        for bucket in list(self._buckets.values()):
            if bucket.parked:
                bucket.parked = False
                woke = True
                if bucket.alone and self._peek(bucket) is None:
                    del self._buckets[bucket.key]  # its workload left while parked
                else:
                    self._announce(bucket)
        return woke

    def resort(self) -> None:
        """Rebuild the heap over the buckets' heads (the LocalQueues' usage moved)."""
        self._top = []
        for bucket in self._buckets.values():
            if not bucket.parked:
                self._announce(bucket)

    def is_parked(self, wl: Workload) -> bool:
        found = self._where.get(wl.key)
        return found is not None and found[0].parked

    def parked_count(self) -> int:
        """How many pending workloads sit in parked (inadmissible) buckets."""
        return sum(1 for bucket, _ in self._where.values() if bucket.parked)

    def members(self) -> list[Workload]:
        """Every pending workload, active or parked, in queue order."""
        live = [
            e[2]
            for b in self._buckets.values()
            for e in b.heap
            if self._where.get(e[2].key) == (b, e[1])
        ]
        return sorted(live, key=self._key)
