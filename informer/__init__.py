"""Reading changing cluster state, once, for every feature that needs it.

- ``objects``: pure accessors for Workload and pod dicts (no Django, no cluster).
- ``kinds``: where the watched kinds are served.
- ``registry``: subscribers (registered by the apps' ``AppConfig.ready``) and the store
  that keeps the lease and cursors.
- ``run``: one watch per stream under one lease, handing events to the subscribers;
  ``tasks.run_informer_task`` is its Celery entry point.
"""
