// Package filelock locks files between processes: wbsctl's state file
// against a second apply, and the token cache while one process rewrites
// it. A lock is on a file of its own (path.lock) that stays behind, empty
// unless its holder wrote who it is (TryLockAs); a lock that a killed
// process held ends with it.
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
	return take(path, false, nil)
}

// TryLockAs takes the lock of path as TryLock does, and writes note, who
// holds it, into the lock file for Holder to read while it is held.
func TryLockAs(path string, note []byte) (unlock func(), err error) {
	return take(path, false, note)
}

// Holder returns the note that the lock's holder wrote, nil when there is
// none: no holder, or one that wrote none. A holder that released the
// lock, or was killed, may have left its note.
func Holder(path string) ([]byte, error) {
	f, err := os.Open(path + ".lock")
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || info.Size() <= noteAt {
		return nil, err
	}
	note := make([]byte, min(info.Size()-noteAt, maxNote))
	n, err := f.ReadAt(note, noteAt)
	if n > 0 {
		return note[:n], nil
	}
	return nil, err
}

// noteAt is where the note starts: after the byte that Windows locks,
// which no other process may read while the lock is held.
const noteAt = 1

// maxNote bounds what Holder reads of a lock file.
const maxNote = 64 << 10

// Lock takes the lock of path, waiting for another process to end its
// own. unlock ends it.
func Lock(path string) (unlock func(), err error) {
	return take(path, true, nil)
}

func take(path string, wait bool, note []byte) (func(), error) {
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
	if note != nil {
		if err := writeNote(f, note); err != nil {
			f.Close()
			return nil, fmt.Errorf("writing who holds %s: %w", name, err)
		}
		return func() {
			f.Truncate(0) // the lock ends with the note
			f.Close()
		}, nil
	}
	return func() { f.Close() }, nil
}

// writeNote replaces what f holds by a newline and note.
func writeNote(f *os.File, note []byte) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.WriteAt(append([]byte{'\n'}, note...), 0)
	return err
}
