"""Reading cluster state: pure accessors for Kueue Workloads and pods (``objects``)."""
