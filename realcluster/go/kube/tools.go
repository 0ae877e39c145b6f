//go:build tools

// Package tools pins the Kubernetes control-plane commands that
// realcluster/build.sh builds, so that `go mod tidy` keeps their requirements.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
