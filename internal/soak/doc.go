// Package soak holds a soak test of wbsctl: bulk loads through `wbsctl
// apply` one after another while SDK clients read, all against one
// reference server that injects every kind of fault, expires tokens and
// rate-limits. It checks that the platform ends as the last file says,
// that nothing was created twice, that every failure reported matches an
// answer the server gave, and that goroutines, connections and memory
// come back to where they started.
//
// It runs a few seconds under `go test ./...`; set WBSCTL_SOAK_DURATION
// (such as 2m) for a longer run and WBSCTL_SOAK_SEED to repeat the faults
// of an earlier one.
package soak
