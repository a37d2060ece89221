//go:build unix

package apply_test

import (
	"os"
	"syscall"
	"testing"
)

// interrupt sends the test process SIGINT, as Ctrl-C does.
func interrupt(t *testing.T) {
	t.Helper()
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
}
