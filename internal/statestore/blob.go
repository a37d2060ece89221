package statestore

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"strings"
	"time"
)

// objects is the storage under a shared state: whole objects, read with
// their version, written only over a version (NoVersion: only where there
// is none). Nothing is ever deleted: a released lock is an object that
// names no holder, so that a release is a conditional write too, which
// every S3 server that keeps the state honours.
type objects interface {
	// get opens the object of key; fs.ErrNotExist where there is none.
	get(ctx context.Context, key string) (io.ReadCloser, object, error)
	// put writes data to key over version and returns the new version;
	// ErrConflict, with nothing written, where key is not at version.
	put(ctx context.Context, key string, version Version, data []byte) (Version, error)
	close() error
}

// Blob is a state kept as an object of a bucket, KEY, and its lock as
// the object KEY.lock. Its version is the object's ETag. Every write is
// conditional (If-Match on the version read, If-None-Match: * where there
// was none), so two writers never both win.
//
// A state is written in one part, by one PutObject (S3's conditional
// writes of multipart uploads are not served by every S3
// implementation): up to maxSinglePart.
type Blob struct {
	url  string
	objs objects
	key  string
}

// maxSinglePart is the largest state written: the part size of one
// upload, which a conditional write needs (about 250 bytes an element
// with links: 2,000,000 elements).
const maxSinglePart = 512 << 20

func openBlob(ctx context.Context, u *url.URL) (*Blob, error) {
	key := strings.TrimPrefix(u.Path, "/")
	if key == "" || strings.HasSuffix(key, "/") {
		return nil, fmt.Errorf("--state %s: name the state's object: %s://BUCKET/KEY", Display(u), u.Scheme)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("--state %s: name the bucket: %s://BUCKET/KEY", Display(u), u.Scheme)
	}
	objs, err := openS3(ctx, u)
	if err != nil {
		return nil, err
	}
	return &Blob{url: Display(u), objs: objs, key: key}, nil
}

func (b *Blob) String() string { return b.url }

// call bounds one call to the bucket by timeout, and names what timed
// out: a bucket that does not answer ends the call, never the run.
func (b *Blob) call(ctx context.Context, timeout time.Duration, what string, fn func(ctx context.Context) error) error {
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	err := fn(cctx)
	if err != nil && ctx.Err() == nil && errors.Is(cctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%s: %s: %w: no answer within %s", b.url, what, ErrTimeout, timeout)
	}
	return err
}

// Read reads the object, its version the ETag of what was read. The read
// of its content is bounded by stateTimeout too.
func (b *Blob) Read(ctx context.Context) (io.ReadCloser, Version, error) {
	cctx, cancel := context.WithTimeout(ctx, stateTimeout)
	r, obj, err := b.objs.get(cctx, b.key)
	if err != nil {
		cancel()
		if ctx.Err() == nil && errors.Is(cctx.Err(), context.DeadlineExceeded) {
			return nil, NoVersion, fmt.Errorf("%s: reading the state: %w: no answer within %s", b.url, ErrTimeout, stateTimeout)
		}
		return nil, NoVersion, err
	}
	return &boundReader{ReadCloser: r, cancel: cancel}, obj.version, nil
}

// boundReader is a read whose context ends when it is closed.
type boundReader struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (r *boundReader) Close() error {
	err := r.ReadCloser.Close()
	r.cancel()
	return err
}

// Write writes the state over version, or where there is none.
func (b *Blob) Write(ctx context.Context, version Version, write func(io.Writer) error) (Version, error) {
	var body bytes.Buffer
	if err := write(&body); err != nil {
		return NoVersion, err
	}
	if body.Len() > maxSinglePart {
		return NoVersion, fmt.Errorf("%s: a state of %d bytes, more than the %d a conditional write takes", b.url, body.Len(), maxSinglePart)
	}
	var v Version
	err := b.call(ctx, stateTimeout, "writing the state", func(ctx context.Context) (err error) {
		v, err = b.objs.put(ctx, b.key, version, body.Bytes())
		if errors.Is(err, ErrConflict) && version != NoVersion {
			// Where no state is left, there is nothing newer to keep.
			v, err = b.objs.put(ctx, b.key, NoVersion, body.Bytes())
		}
		return err
	})
	return v, err
}

func (b *Blob) lockKey() string { return b.key + ".lock" }

// lockNote is what KEY.lock holds: a holder, or, once released, what
// released it.
type lockNote struct {
	*Holder
	Released *Released `json:"released,omitempty"`
}

// Released is a lock released: whose it was, and by what. Unverified is
// a break that the next holder is to treat as its own: a lock released by
// state unlock (whose run may have written after it last wrote the
// state), or released by a run that broke a lock and did not write the
// state after reading everything.
type Released struct {
	ID         string    `json:"id"`
	By         string    `json:"by"` // "release" or "unlock"
	At         time.Time `json:"at"`
	Unverified *Broken   `json:"unverified,omitempty"`
}

// maxLockTries bounds the takes of a lock that others release and take
// as it is tried.
const maxLockTries = 5

// Lock writes KEY.lock, holding holder, where none exists or the last
// was released. A lock that the server last wrote breakStaleAfter ago or
// more (when given; by the server's clock alone, its Last-Modified
// against its Date) is replaced, by a write conditional on its own
// version, so that two runs never both break it.
func (b *Blob) Lock(ctx context.Context, holder Holder, breakStaleAfter time.Duration) (Lease, error) {
	holder.Renewed = holder.Taken
	note, err := json.Marshal(lockNote{Holder: &holder})
	if err != nil {
		return nil, err
	}
	for range maxLockTries {
		var v Version
		err := b.call(ctx, lockTimeout, "taking the lock", func(ctx context.Context) (err error) {
			v, err = b.objs.put(ctx, b.lockKey(), NoVersion, note)
			return err
		})
		if err == nil {
			return &blobLease{b: b, holder: holder, version: v}, nil
		}
		if !errors.Is(err, ErrConflict) {
			return nil, b.abandon(ctx, holder, err)
		}
		held, rel, obj, err := b.readNote(ctx)
		switch {
		case err != nil:
			return nil, err
		case obj.version == NoVersion:
			continue // deleted meanwhile
		case held != nil && held.ID == holder.ID:
			// This run's own take, whose answer was lost.
			return &blobLease{b: b, holder: holder, version: obj.version}, nil
		}
		var broken *Broken
		if rel != nil {
			broken = rel.Unverified // carried over: this run is to verify it
		}
		if held != nil {
			age, known := obj.age()
			if breakStaleAfter <= 0 || !known || age < breakStaleAfter {
				return nil, b.locked(held, breakStaleAfter, age, known)
			}
			broken = &Broken{Holder: *held, Age: age.Truncate(time.Second), At: obj.serverNow}
		}
		err = b.call(ctx, lockTimeout, "taking the lock", func(ctx context.Context) (err error) {
			v, err = b.objs.put(ctx, b.lockKey(), obj.version, note)
			return err
		})
		if err != nil && !errors.Is(err, ErrConflict) {
			return nil, b.abandon(ctx, holder, err)
		}
		switch {
		case err == nil && broken != nil:
			// Read back: a server that lets a racing breaker's write
			// through as well (versitygw's posix backend skips the
			// condition when it cannot read the object's ETag while
			// another write lands) shows it here, and this run yields.
			if now, _, rerr := b.readLock(ctx); rerr != nil || now == nil || now.ID != holder.ID {
				if rerr != nil {
					return nil, b.abandon(ctx, holder, rerr)
				}
				return nil, b.locked(cmp.Or(now, held), breakStaleAfter, 0, false)
			}
			return &blobLease{b: b, holder: holder, version: v, broken: broken}, nil
		case err == nil:
			return &blobLease{b: b, holder: holder, version: v, broken: broken}, nil
		case !errors.Is(err, ErrConflict):
			return nil, err
		case held != nil:
			// Another breaker, or the holder's renewal, came first.
			return nil, b.locked(held, breakStaleAfter, 0, false)
		}
	}
	return nil, fmt.Errorf("%s: the lock changed under each of %d takes", b.url, maxLockTries)
}

// abandon is the error err of a take that may have written the lock
// (its answer lost, a signal, a read after it failed): a lock that names
// holder is released, within releaseTimeout of its own; where that
// cannot be told, the error says so and how to release it.
func (b *Blob) abandon(ctx context.Context, holder Holder, err error) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
	defer cancel()
	h, obj, rerr := b.readLock(ctx)
	switch {
	case rerr != nil:
		return fmt.Errorf("%w; the take may have written the lock %s, and reading it back failed (%v): %w", err, holder.ID, rerr, ErrMayHoldLock)
	case h == nil || h.ID != holder.ID:
		return err
	}
	if rerr := b.release(ctx, holder.ID, "release", obj.version); rerr != nil && !errors.Is(rerr, ErrConflict) {
		return fmt.Errorf("%w; the take wrote the lock %s, and releasing it failed (%v): %w", err, holder.ID, rerr, ErrMayHoldLock)
	}
	return err
}

// locked is the refusal of a lock that held holds, with its age by the
// server's clock where the run would break a stale lock.
func (b *Blob) locked(held *Holder, breakStaleAfter, age time.Duration, known bool) *LockedError {
	e := &LockedError{Store: b.url, Holder: held, Unlockable: true,
		Ends: "its run releases it as it ends; once its run is gone (killed), state unlock releases it"}
	switch {
	case breakStaleAfter <= 0:
	case known:
		e.Ends += fmt.Sprintf("; by the bucket's clock it was last renewed %s ago, less than --break-stale-after %s", age.Truncate(time.Second), breakStaleAfter)
	default:
		e.Ends += "; the bucket named no time of its last write, so it is never broken as stale"
	}
	return e
}

// readLock reads KEY.lock: its holder, nil where there is none or it was
// released, and the object's version and times (NoVersion where there is
// no object). A read that raced a write is made again.
func (b *Blob) readLock(ctx context.Context) (*Holder, object, error) {
	h, _, obj, err := b.readNote(ctx)
	return h, obj, err
}

// readNote is readLock with the note of a released lock, nil where the
// lock is held or there is none.
func (b *Blob) readNote(ctx context.Context) (*Holder, *Released, object, error) {
	for try := 1; ; try++ {
		h, rel, obj, err := b.readNoteOnce(ctx)
		if !errors.Is(err, ErrTornRead) || try == maxLockTries {
			return h, rel, obj, err
		}
	}
}

func (b *Blob) readNoteOnce(ctx context.Context) (*Holder, *Released, object, error) {
	var h *Holder
	var rel *Released
	var obj object
	err := b.call(ctx, lockTimeout, "reading the lock", func(ctx context.Context) error {
		r, o, err := b.objs.get(ctx, b.lockKey())
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		defer r.Close()
		data, err := io.ReadAll(io.LimitReader(r, 64<<10))
		if err != nil {
			return err
		}
		obj = o
		var note lockNote
		switch err := json.Unmarshal(data, &note); {
		case err == nil && note.Released != nil && note.Holder == nil:
			rel = note.Released
		case err != nil || note.Holder == nil || note.ID == "":
			// A lock object of no holder wbsctl wrote: held, by nobody
			// it can name, until it is unlocked or broken as stale.
			h = &Holder{ID: "?", Operation: "an unreadable lock"}
		default:
			h = note.Holder
		}
		return nil
	})
	return h, rel, obj, err
}

// Holder returns who KEY.lock names.
func (b *Blob) Holder(ctx context.Context) (*Holder, error) {
	h, _, err := b.readLock(ctx)
	return h, err
}

// Unlock releases KEY.lock when it names id, by a write conditional on
// the version read: a lock taken since is left as it is. A lock the
// bucket saw renewed less than MinBreakStale ago may be a live run's,
// which could still write: it is released only with force (the person
// knows the run is gone). The release tells the next run to treat it as
// a break: it trusts none of the state until it has read everything.
func (b *Blob) Unlock(ctx context.Context, id string, force bool) error {
	h, obj, err := b.readLock(ctx)
	if err != nil {
		return err
	}
	if h == nil || h.ID != id {
		held := "nobody"
		if h != nil {
			held = h.String()
		}
		return fmt.Errorf("%w: %s is not locked as %s (held by %s)", ErrNotLocked, b.url, id, held)
	}
	age, known := obj.age()
	if !force && (!known || age < MinBreakStale) {
		when := "the bucket named no time of its last write"
		if known {
			when = fmt.Sprintf("the bucket saw it renewed %s ago", age.Truncate(time.Second))
		}
		return fmt.Errorf("%w: %s: the lock %s may be a live run's (%s; a run renews it every %s): once you know its run is gone, --force releases it; after %s without a renewal, no --force is needed",
			ErrYoungLock, b.url, BucketText(id), when, RenewEvery, MinBreakStale)
	}
	err = b.releaseAs(ctx, id, "unlock", obj.version, &Broken{Holder: *h, Age: age.Truncate(time.Second), At: obj.serverNow})
	if errors.Is(err, ErrConflict) {
		return fmt.Errorf("%w: %s: the lock %s was renewed or taken as it was released; nothing was released (state show tells who holds it now)", ErrNotLocked, b.url, id)
	}
	return err
}

// release writes over version the note that the lock of id was released.
func (b *Blob) release(ctx context.Context, id, by string, version Version) error {
	return b.releaseAs(ctx, id, by, version, nil)
}

// releaseAs is release, with a break the next holder is to verify.
func (b *Blob) releaseAs(ctx context.Context, id, by string, version Version, unverified *Broken) error {
	note, err := json.Marshal(lockNote{Released: &Released{ID: id, By: by, At: time.Now().UTC().Truncate(time.Second), Unverified: unverified}})
	if err != nil {
		return err
	}
	return b.call(ctx, lockTimeout, "releasing the lock", func(ctx context.Context) error {
		_, err := b.objs.put(ctx, b.lockKey(), version, note)
		return err
	})
}

func (b *Blob) Close() error { return b.objs.close() }

// blobLease is KEY.lock held: renewed by a write over its own version,
// so that a renewal fails once another run broke the lock.
type blobLease struct {
	b       *Blob
	holder  Holder
	version Version
	broken  *Broken
	// verified is a broken lock whose run wrote the state after reading
	// everything: the next holder need not read everything again.
	verified bool
}

func (l *blobLease) markVerified() { l.verified = true }

// unverified is the break the release hands on, nil where there is none.
func (l *blobLease) unverified() *Broken {
	if l.verified {
		return nil
	}
	return l.broken
}

func (l *blobLease) Renew(ctx context.Context) error {
	l.holder.Renewed = time.Now().UTC().Truncate(time.Second)
	l.holder.Renewals++
	note, err := json.Marshal(lockNote{Holder: &l.holder})
	if err != nil {
		return err
	}
	var v Version
	err = l.b.call(ctx, lockTimeout, "renewing the lock", func(ctx context.Context) (err error) {
		v, err = l.b.objs.put(ctx, l.b.lockKey(), l.version, note)
		return err
	})
	if errors.Is(err, ErrConflict) {
		// A renewal whose answer was lost may have landed: the lock is
		// still this run's if it names it.
		if v, err = l.reclaim(ctx); err != nil {
			return err
		}
		if v == NoVersion {
			return fmt.Errorf("the state's lock was taken from this run: %w", ErrLocked)
		}
	}
	if err != nil {
		return err
	}
	l.version = v
	return nil
}

// reclaim reads the lock and returns its version where it still names
// this lease's holder (a write of this run's whose answer was lost moved
// it on), NoVersion where another run's lock, or none, is there.
func (l *blobLease) reclaim(ctx context.Context) (Version, error) {
	h, obj, err := l.b.readLock(ctx)
	if err != nil || h == nil || h.ID != l.holder.ID {
		return NoVersion, err
	}
	return obj.version, nil
}

// Release marks KEY.lock released, if it is still this lease's version:
// a lock another run took is left as it is.
func (l *blobLease) Release(ctx context.Context) error {
	version := l.version
	err := l.b.releaseAs(ctx, l.holder.ID, "release", version, l.unverified())
	if errors.Is(err, ErrConflict) {
		// Another run's lock now, unless a renewal of this run's whose
		// answer was lost moved it on.
		if version, err = l.reclaim(ctx); err != nil || version == NoVersion {
			return err
		}
		err = l.b.releaseAs(ctx, l.holder.ID, "release", version, l.unverified())
		if errors.Is(err, ErrConflict) {
			return nil
		}
	}
	return err
}

func (l *blobLease) Broken() *Broken { return l.broken }
