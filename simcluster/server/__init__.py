"""Simulated Kubernetes API server (see docs/simcluster.md).

``start_server()`` runs one in-process on a thread; ``python -m simcluster serve``
runs it as a process.
"""

from simcluster.server.app import SimServer, start_server

__all__ = ["SimServer", "start_server"]
