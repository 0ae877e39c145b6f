"""The admissionFairSharing block the demo's cluster runs with (simulated or real: both
clusters' ``--admission-fair-sharing``), which ``make run`` tells the portal about."""

DEMO_ADMISSION_FAIR_SHARING = {
    "usageHalfLifeTime": "1m",
    "usageSamplingInterval": "2s",
    "resourceWeights": {"nvidia.com/gpu": 100.0, "cpu": 1.0, "memory": 0.0},
}
