"""GPU device bookkeeping per node, as the NVIDIA device plugin hands them out.

Each node's ``nvidia.com/gpu`` (or MIG) capacity is a row of slots
``0..N-1``; a pod gets the lowest free slots when it starts and gives them
back when it stops. Identities (UUID, PCI bus id, MIG instance) are derived
from node and slot only, so they are stable across runs and restarts.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

GPU = "nvidia.com/gpu"
MIG_PREFIX = "nvidia.com/mig-"


def is_gpu_resource(name: str) -> bool:
    return name == GPU or name.startswith(MIG_PREFIX)


def mig_profile(resource: str) -> str | None:
    """``nvidia.com/mig-1g.10gb`` -> ``1g.10gb``; None for whole GPUs."""
    return resource[len(MIG_PREFIX) :] if resource.startswith(MIG_PREFIX) else None


def instances_per_gpu(profile: str) -> int:
    """A100/H100 have 7 compute slices; a ``3g`` instance takes three of them."""
    slices = int(profile.split("g", 1)[0] or 1)
    return max(1, 7 // slices)


@dataclass(frozen=True)
class Device:
    """One GPU (or MIG instance) as dcgm-exporter labels it."""

    node: str
    resource: str
    slot: int

    @property
    def profile(self) -> str | None:
        return mig_profile(self.resource)

    @property
    def gpu_index(self) -> int:
        profile = self.profile
        return self.slot // instances_per_gpu(profile) if profile else self.slot

    @property
    def instance_id(self) -> int | None:
        profile = self.profile
        return self.slot % instances_per_gpu(profile) if profile else None

    @property
    def uuid(self) -> str:
        """The physical GPU's UUID (MIG instances report their parent's)."""
        value = uuid.uuid5(uuid.NAMESPACE_DNS, f"{self.node}.gpu{self.gpu_index}.simcluster")
        return f"GPU-{value}"

    @property
    def pci_bus_id(self) -> str:
        return f"00000000:{0x18 + 0x10 * self.gpu_index:02X}:00.0"


class DeviceTable:
    """Free/used slots per (node, resource)."""

    def __init__(self) -> None:
        self._used: dict[tuple[str, str], set[int]] = {}

    def allocate(self, node: str, resource: str, count: int) -> list[int]:
        used = self._used.setdefault((node, resource), set())
        slots, slot = [], 0
        while len(slots) < count:
            if slot not in used:
                slots.append(slot)
            slot += 1
        used.update(slots)
        return slots

    def claim(self, node: str, resource: str, slots: list[int]) -> None:
        """Re-register slots read back from a pod (after a restart)."""
        self._used.setdefault((node, resource), set()).update(slots)

    def release(self, node: str, resource: str, slots: list[int]) -> None:
        self._used.get((node, resource), set()).difference_update(slots)


def encode(devices: dict[str, list[int]]) -> str:
    """Pod annotation value: ``nvidia.com/gpu=0,1;nvidia.com/mig-1g.10gb=3``."""
    return ";".join(f"{res}={','.join(map(str, slots))}" for res, slots in sorted(devices.items()))


def decode(text: str) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for part in filter(None, (text or "").split(";")):
        res, _, slots = part.partition("=")
        out[res] = [int(s) for s in slots.split(",") if s]
    return out
