package statestore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/wbsctl/wbsctl/internal/atomicfile"
	"github.com/wbsctl/wbsctl/internal/filelock"
)

// File is a state kept in a local file, written atomically (a file beside
// it renamed into place), 0600, and locked with an flock on FILE.lock,
// which ends with the process that held it. Its version is the digest of
// its content.
type File struct {
	path string
}

// NewFile returns the store of the state file of path.
func NewFile(path string) *File { return &File{path: path} }

func (f *File) String() string { return f.path }

// Path is the file's path.
func (f *File) Path() string { return f.path }

// Read opens the file, its version the digest of what it holds.
func (f *File) Read(ctx context.Context) (io.ReadCloser, Version, error) {
	// A state is a regular file: a FIFO in its place would hold the open
	// where no signal ends it.
	if fi, err := os.Stat(f.path); err == nil && !fi.Mode().IsRegular() {
		return nil, NoVersion, fmt.Errorf("%s is no regular file", f.path)
	}
	file, err := os.Open(f.path)
	if err != nil {
		return nil, NoVersion, err
	}
	h := sha256.New()
	if _, err := io.Copy(h, file); err != nil {
		file.Close()
		return nil, NoVersion, err
	}
	if _, err := file.Seek(0, io.SeekStart); err != nil {
		file.Close()
		return nil, NoVersion, err
	}
	return file, digest(h), nil
}

// version is the digest of the file as it is now; NoVersion where there
// is none.
func (f *File) version() (Version, error) {
	rc, v, err := f.Read(context.Background())
	if errors.Is(err, fs.ErrNotExist) {
		return NoVersion, nil
	}
	if err != nil {
		return NoVersion, err
	}
	rc.Close()
	return v, nil
}

func digest(h hash.Hash) Version { return Version("sha256:" + hex.EncodeToString(h.Sum(nil))) }

// Write replaces the file if it still holds version, or holds none:
// where no state is left, there is nothing newer to keep.
func (f *File) Write(ctx context.Context, version Version, write func(io.Writer) error) (Version, error) {
	now, err := f.version()
	if err != nil {
		return NoVersion, err
	}
	if now != NoVersion && now != version {
		return NoVersion, ErrConflict
	}
	out, err := atomicfile.Create(f.path, 0o600)
	if err != nil {
		return NoVersion, err
	}
	defer out.Abort()
	h := sha256.New()
	if err := write(io.MultiWriter(out, h)); err != nil {
		return NoVersion, err
	}
	if err := out.Commit(); err != nil {
		return NoVersion, err
	}
	return digest(h), nil
}

// Lock takes the flock of FILE.lock and writes holder into it. A local
// lock is never stale: it ends with its process. A folder of the path
// that is not there yet is made, readable by its owner only, as a first
// run with --state .wbsctl/state expects.
func (f *File) Lock(ctx context.Context, holder Holder, _ time.Duration) (Lease, error) {
	note, err := json.Marshal(holder)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(f.path), 0o700); err != nil {
		return nil, fmt.Errorf("the state's folder: %w", err)
	}
	unlock, err := filelock.TryLockAs(f.path, note)
	for try := 0; errors.Is(err, filelock.ErrLocked); try++ {
		h, _ := f.Holder(ctx)
		if h != nil || try == 3 {
			return nil, &LockedError{Store: f.path, Holder: h, Ends: "a local state's lock ends with its process"}
		}
		// No holder named: a look (state show) that holds the lock for
		// an instant, or a holder about to write its name.
		time.Sleep(20 * time.Millisecond)
		unlock, err = filelock.TryLockAs(f.path, note)
	}
	if err != nil {
		return nil, err
	}
	return fileLease(unlock), nil
}

// fileLease is a held flock: it needs no renewal.
type fileLease func()

func (l fileLease) Renew(context.Context) error { return nil }
func (l fileLease) Broken() *Broken             { return nil }

// endsWithItsProcess says that nobody breaks a local lock: its holder
// needs no term (Held).
func (l fileLease) endsWithItsProcess() {}

func (l fileLease) Release(context.Context) error {
	l()
	return nil
}

// Holder reads who the lock file names while the lock is held; nil when
// it is not held (a killed holder's note may be left behind) or names
// nobody.
func (f *File) Holder(context.Context) (*Holder, error) {
	note, err := filelock.Holder(f.path)
	if err != nil || note == nil {
		return nil, err
	}
	if unlock, err := filelock.TryLock(f.path); err == nil {
		unlock() // free: the note is a killed holder's
		return nil, nil
	}
	var h Holder
	if json.Unmarshal(note, &h) != nil || h.ID == "" {
		return nil, nil
	}
	return &h, nil
}

// Unlock refuses: a local lock ends with the process that held it, and
// one that lives is not to be taken from it.
func (f *File) Unlock(ctx context.Context, id string, _ bool) error {
	h, err := f.Holder(ctx)
	if err != nil {
		return err
	}
	if h == nil || h.ID != id {
		return fmt.Errorf("%w: %s is not locked as %s (a local state's lock ends with its process)", ErrNotLocked, f.path, id)
	}
	return fmt.Errorf("%s is locked by %s: a local state's lock ends with its process (pid %d on %s); end that process instead", f.path, h, h.PID, BucketText(h.Host))
}

func (f *File) Close() error { return nil }
