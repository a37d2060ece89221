// Package filelock locks files between processes: wbsctl's state file
// against a second apply, and the token cache while one process rewrites
// it. A lock is on a file of its own (path.lock) that stays behind, empty;
// a lock that a killed process held ends with it.
package filelock

import (
	"errors"
	"fmt"
	"os"
)

// ErrLocked is a lock another process holds.
var ErrLocked = errors.New("locked")

// TryLock takes the lock of path without waiting; ErrLocked when another
// process holds it. unlock ends it.
func TryLock(path string) (unlock func(), err error) {
	return take(path, false)
}

// Lock takes the lock of path, waiting for another process to end its
// own. unlock ends it.
func Lock(path string) (unlock func(), err error) {
	return take(path, true)
}

func take(path string, wait bool) (func(), error) {
	name := path + ".lock"
	f, err := openNoFollow(name)
	if err != nil {
		if fi, lerr := os.Lstat(name); lerr == nil && fi.Mode()&os.ModeSymlink != 0 {
			// Planted in a shared folder, it would have wbsctl create
			// or take a file where it points.
			return nil, fmt.Errorf("%s is a symbolic link: refusing to follow it", name)
		}
		return nil, err
	}
	if err := lock(f, wait); err != nil {
		f.Close()
		if errors.Is(err, ErrLocked) {
			return nil, err
		}
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	return func() { f.Close() }, nil
}
