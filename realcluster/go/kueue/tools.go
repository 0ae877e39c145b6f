//go:build tools

// Package tools pins the Kueue controller-manager command that
// realcluster/build.sh builds, so that `go mod tidy` keeps its requirements.
package tools

import (
	_ "sigs.k8s.io/kueue/cmd/kueue"
)
