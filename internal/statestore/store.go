// Package statestore keeps apply's state where runs share it: a local
// file, or an object in an S3 bucket (s3://, through the AWS SDK's S3
// client), so that CI runners that start with nothing share one state. A
// store reads the state with its version and writes it only over that
// version, and locks it with a lock that names its holder. A shared
// state's lock is a lease: Keep renews it and fences the holder's writes
// (see LeaseTerm), and a breaker judges it stale by the bucket's clock.
package statestore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Version names what a Read found, for a Write to replace only that;
// NoVersion is no state.
type Version string

// NoVersion is the version of a state that does not exist.
const NoVersion Version = ""

// Store is where a state is kept, and its lock.
type Store interface {
	Storage
	Locker
}

// Storage keeps a state's bytes, each version written only over the one
// read.
type Storage interface {
	// String names the store in messages: its path or URL, without
	// credentials (a URL carries none).
	String() string
	// Read opens the state and names its version; fs.ErrNotExist when
	// there is none.
	Read(ctx context.Context) (io.ReadCloser, Version, error)
	// Write replaces the state by what write writes, only if the state
	// is still at version (NoVersion: only if there is none), and
	// returns the new version; ErrConflict, with nothing written,
	// otherwise. A state is never seen half written.
	Write(ctx context.Context, version Version, write func(io.Writer) error) (Version, error)
	Close() error
}

// Locker is a state's lock.
type Locker interface {
	// Lock takes the state's lock for holder: a *LockedError (matching
	// ErrLocked) naming the holder when another holds it and is not
	// stale by breakStaleAfter (0: never stale), judged by the store's
	// clock.
	Lock(ctx context.Context, holder Holder, breakStaleAfter time.Duration) (Lease, error)
	// Holder returns who holds the lock, nil when nobody does.
	Holder(ctx context.Context) (*Holder, error)
	// Unlock releases the lock of id, whoever took it: for a person,
	// after the run that held it was killed. A lock that may be a live
	// run's is refused (ErrYoungLock) unless force.
	Unlock(ctx context.Context, id string, force bool) error
}

// Lease is a lock held.
type Lease interface {
	// Renew tells others the holder lives; an error means the lock may
	// have been taken from it.
	Renew(ctx context.Context) error
	// Release ends the lock, if it is still this lease's.
	Release(ctx context.Context) error
	// Broken is the stale lock that the take of this lease broke, nil
	// where it broke none.
	Broken() *Broken
}

// ErrConflict is a write refused because the state is no longer the one
// read.
var ErrConflict = errors.New("the state changed since it was read")

// ErrLocked is a lock another run holds.
var ErrLocked = errors.New("another wbsctl run holds the state's lock")

// ErrYoungLock is an unlock of a lock renewed too lately to tell that its
// run is gone.
var ErrYoungLock = errors.New("the lock may be a live run's")

// ErrNotLocked is an unlock of a lock nobody holds, or another id's.
var ErrNotLocked = errors.New("no such lock")

// LockedError is a lock another run holds, and who it is.
type LockedError struct {
	Store  string
	Holder *Holder // nil where it is not known
	// Ends says how such a lock ends when its run is gone.
	Ends string
	// Unlockable is a lock that wbsctl state unlock releases once its
	// run is gone (a bucket's).
	Unlockable bool
}

func (e *LockedError) Error() string {
	who := "another process (it wrote no holder)"
	if e.Holder != nil {
		who = e.Holder.String()
	}
	return fmt.Sprintf("%v: %s: held by %s", ErrLocked, e.Store, who)
}

func (e *LockedError) Unwrap() error { return ErrLocked }

// Holder is who holds a state's lock.
type Holder struct {
	// ID names this holding of the lock: what state unlock takes.
	ID   string `json:"id"`
	Host string `json:"host"`
	PID  int    `json:"pid"`
	// Operation is what the holder does, such as "apply -f wbs.csv".
	Operation string `json:"operation"`
	// JobURL is the CI job's address, where one is known.
	JobURL string    `json:"jobUrl,omitempty"`
	Taken  time.Time `json:"taken"`
	// Renewed is when the holder last said it lives, by its own clock,
	// and Renewals how often it did: each renewal's note, and so its
	// version, is its own. A local file's lock ends with its process and
	// is never renewed.
	Renewed  time.Time `json:"renewed,omitzero"`
	Renewals int64     `json:"renewals,omitempty"`
}

// String names the holder on one line. Every member is read from a
// lock object that anyone who can write the bucket could have written:
// each is escaped, so that no newline, escape sequence or workflow
// command from it reaches a terminal or a CI log.
func (h *Holder) String() string {
	esc := BucketText
	s := fmt.Sprintf("%s on %s (pid %d, lock %s) since %s", esc(h.Operation), esc(h.Host), h.PID, esc(h.ID), h.Taken.UTC().Format(time.RFC3339))
	if !h.Renewed.IsZero() {
		s += ", renewed " + h.Renewed.UTC().Format(time.RFC3339) + " by its clock"
	}
	if h.JobURL != "" {
		s += ", " + esc(h.JobURL)
	}
	return s
}

// BucketText is s, read from a bucket's object, with every character that
// a terminal or a CI runner could act on escaped as Go escapes it: the
// controls, line breaks and format characters (bidi controls among
// them), so that no line of it can start a workflow command. Anyone who
// can write the bucket writes what its objects say.
func BucketText(s string) string {
	q := strconv.QuoteToGraphic(s)
	return q[1 : len(q)-1]
}

// NewHolder returns a holder of a new id for operation, on this host and
// process, taken at now.
func NewHolder(operation, jobURL string, now time.Time) Holder {
	host, _ := os.Hostname()
	now = now.UTC().Truncate(time.Second)
	return Holder{ID: RandomID()[:16], Host: host, PID: os.Getpid(), Operation: operation, JobURL: jobURL, Taken: now}
}

// RandomID is 128 random bits in hex.
func RandomID() string {
	b := make([]byte, 16)
	rand.Read(b) // never fails: it crashes the program first
	return hex.EncodeToString(b)
}

// Open returns the store of a --state: a path or file:// URL is a local
// file; s3://BUCKET/KEY (with endpoint, region and use_path_style in its
// query, credentials from the usual AWS environment and files) an
// object.
func Open(ctx context.Context, state string) (Store, error) {
	if path, local, err := LocalPath(state); err != nil || local {
		return NewFile(path), err
	}
	u, err := url.Parse(state)
	if err != nil {
		return nil, errors.New("--state: not a URL wbsctl can read (a path, file://, or s3://BUCKET/KEY)")
	}
	if u.Scheme == "s3" {
		return openBlob(ctx, u)
	}
	return nil, fmt.Errorf("--state %s: %q is not a state wbsctl keeps (a path, file://, or s3://BUCKET/KEY)", Display(u), u.Scheme)
}

// Display is how a state's URL is named in messages: without its query
// and user, which may carry an endpoint's credentials; "?…" says a query
// was left out.
func Display(u *url.URL) string {
	shown := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}
	if u.RawQuery != "" {
		return shown.String() + "?…"
	}
	return shown.String()
}

// LocalPath returns the path of a --state that is a local file: a path,
// or a file:// URL.
func LocalPath(state string) (path string, local bool, err error) {
	scheme, _, found := strings.Cut(state, "://")
	if !found || len(scheme) == 1 { // C:\... on Windows is a path
		return state, true, nil
	}
	if scheme != "file" {
		return "", false, nil
	}
	u, err := url.Parse(state)
	if err != nil {
		return "", true, errors.New("--state: a file:// URL wbsctl cannot read")
	}
	if u.Host != "" && u.Host != "localhost" {
		return "", true, fmt.Errorf("--state %s: a file:// URL names a file of this host", state)
	}
	return filepath.FromSlash(u.Path), true, nil
}
