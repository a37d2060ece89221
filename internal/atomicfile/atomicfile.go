// Package atomicfile writes the user's files (plans, states, reports) so
// that a reader finds the old content or the new, never a part of either:
// a temporary file in the same folder, written and synced, then renamed
// over the target. The folder is used as it is: its mode, owner and sticky
// bit are the user's.
package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// File is a file being written; the target appears only on Commit.
type File struct {
	*os.File
	path string
	done bool
}

// Create starts writing path with the mode perm. The temporary file sits
// beside path, so that the rename stays on one file system.
func Create(path string, perm fs.FileMode) (*File, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, err
	}
	// CreateTemp makes the file 0600; the caller's mode is set exactly,
	// whatever the umask.
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, err
	}
	return &File{File: tmp, path: path}, nil
}

// Commit syncs what was written and puts it in place of the target.
func (f *File) Commit() error {
	if f.done {
		return errors.New("atomicfile: committed or aborted already")
	}
	f.done = true
	err := f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), f.path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// Abort drops what was written; the target stays as it was. It does
// nothing after Commit, so that it can be deferred.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.Close()
	os.Remove(f.Name())
}

// Write writes data to path atomically with the mode perm.
func Write(path string, data []byte, perm fs.FileMode) error {
	f, err := Create(path, perm)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.Write(data); err != nil {
		return err
	}
	return f.Commit()
}
