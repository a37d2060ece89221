//go:build unix

package apply

import (
	"os"

	"golang.org/x/sys/unix"
)

// openStepSummary opens name to append to it, creating it, and refuses a
// symbolic link in the open itself: a check before opening would leave a
// moment in which to put a link in the file's place. The open does not
// wait: a FIFO in the file's place opens at once, and is then refused as
// no regular file.
func openStepSummary(name string) (*os.File, error) {
	f, err := os.OpenFile(name, os.O_APPEND|os.O_CREATE|os.O_RDWR|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0o644)
	// The refusal is ELOOP on Linux and macOS, EMLINK or EFTYPE on some
	// BSDs: the link itself says it best.
	if err != nil && isSymlink(name) {
		return nil, symlinkRefused(name)
	}
	return f, err
}
