"""A real Kubernetes control plane and the real Kueue, built from published Go modules.

Test and demo infrastructure, never imported by the portal: the portal only ever sees
a kubeconfig. See docs/realcluster.md.
"""
