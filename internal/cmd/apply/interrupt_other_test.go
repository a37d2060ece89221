//go:build !unix

package apply_test

import "testing"

// interrupt skips the test: a process cannot send itself SIGINT here.
func interrupt(t *testing.T) { t.Skip("a process cannot send itself SIGINT on this system") }
