//go:build tools

// Package tools pins Kueue's scheduler-performance harness (the runner and
// minimalkueue) so that `go mod tidy` keeps their requirements;
// bench/kueue_harness.sh builds both from here.
package tools

import (
	_ "sigs.k8s.io/kueue/test/performance/scheduler/minimalkueue"
	_ "sigs.k8s.io/kueue/test/performance/scheduler/runner"
)
