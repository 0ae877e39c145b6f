//go:build tools

// Package tools pins the etcd server command that realcluster/build.sh
// builds, so that `go mod tidy` keeps its requirements.
package tools

import (
	_ "go.etcd.io/etcd/server/v3"
)
