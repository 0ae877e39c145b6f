"""The reconciler: ``desired`` (render the DB), ``observe`` (read the cluster),
``plan`` (pure diff), ``apply`` (write), orchestrated by ``run``.

Level-based: every run compares the whole desired state with what the cluster
holds, so a missed trigger or an out-of-band edit is repaired by the next run.
"""
