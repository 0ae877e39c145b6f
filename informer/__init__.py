"""Reading changing cluster state, once, for every feature that needs it.

- ``objects``: pure accessors for Workload and pod fields (no cluster).
- ``workload``: what a Workload's conditions mean (state, transitions, pending reason,
  preemption, lost work), for every reader (pure).
- ``kinds``: where the watched kinds are served.
- ``registry``: subscribers, registered by the apps' ``AppConfig.ready``.
- ``models`` and ``cursors``: the informer's lease and one resume cursor per stream.
- ``run``: one watch per stream under one lease, handing events to the subscribers;
  ``tasks.run_informer_task`` is its Celery entry point.
"""
