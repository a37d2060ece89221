package statestore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	"gocloud.dev/blob"
	_ "gocloud.dev/blob/s3blob" // s3://
	"gocloud.dev/gcerrors"
)

// Blob is a state kept as an object of a bucket, KEY, and its lock as
// the object KEY.lock. Its version is the object's ETag. On S3 every
// write is conditional (If-Match on the version read, If-None-Match: *
// where there was none), so two writers never both win; the memory bucket
// of tests checks the version before writing instead.
//
// A state is written in one part, by one PutObject (S3's conditional
// writes of multipart uploads are not served by every S3
// implementation): up to maxSinglePart.
type Blob struct {
	url    string
	bucket *blob.Bucket
	name   string // the bucket's
	key    string
	// s3 writes, where the bucket is S3's: one PutObject each, its
	// conditions the server's.
	s3 *s3.Client
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
	bucketURL := *u
	bucketURL.Path = ""
	bucket, err := blob.OpenBucket(ctx, bucketURL.String())
	if err != nil {
		// gocloud's message names the URL, query and all.
		msg := strings.ReplaceAll(err.Error(), bucketURL.String(), Display(&bucketURL))
		if u.RawQuery != "" {
			msg = strings.ReplaceAll(msg, u.RawQuery, "…")
		}
		return nil, fmt.Errorf("--state %s: %s", Display(u), msg)
	}
	b := &Blob{url: Display(u), bucket: bucket, name: u.Host, key: key}
	if !bucket.As(&b.s3) {
		b.s3 = nil
	}
	return b, nil
}

func (b *Blob) String() string { return b.url }

// Read reads the object, its version the ETag of what was read.
func (b *Blob) Read(ctx context.Context) (io.ReadCloser, Version, error) {
	return b.read(ctx, b.key)
}

func (b *Blob) read(ctx context.Context, key string) (io.ReadCloser, Version, error) {
	var version Version
	if b.s3 == nil {
		attrs, err := b.bucket.Attributes(ctx, key)
		if err != nil {
			return nil, NoVersion, b.wrap(err, key)
		}
		version = Version(attrs.ETag)
	}
	r, err := b.bucket.NewReader(ctx, key, nil)
	if err != nil {
		return nil, NoVersion, b.wrap(err, key)
	}
	var out s3.GetObjectOutput
	if r.As(&out) && out.ETag != nil {
		version = Version(*out.ETag)
	}
	return r, version, nil
}

// wrap makes a missing object fs.ErrNotExist, and names the object.
func (b *Blob) wrap(err error, key string) error {
	if err == nil {
		return nil
	}
	if gcerrors.Code(err) == gcerrors.NotFound {
		return fmt.Errorf("%s: %w", key, fs.ErrNotExist)
	}
	return fmt.Errorf("%s: %w", key, err)
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
	v, err := b.put(ctx, b.key, version, body.Bytes())
	if errors.Is(err, ErrConflict) && version != NoVersion {
		// Where no state is left, there is nothing newer to keep.
		v, err = b.put(ctx, b.key, NoVersion, body.Bytes())
	}
	return v, err
}

// put writes data to key, only over version (NoVersion: only where there
// is nothing), and returns the new version.
func (b *Blob) put(ctx context.Context, key string, version Version, data []byte) (Version, error) {
	if b.s3 != nil {
		return b.putS3(ctx, key, version, data)
	}
	opts := &blob.WriterOptions{ContentType: "application/json", IfNotExist: version == NoVersion}
	if version != NoVersion {
		if attrs, err := b.bucket.Attributes(ctx, key); err != nil || Version(attrs.ETag) != version {
			return NoVersion, ErrConflict
		}
	}
	w, err := b.bucket.NewWriter(ctx, key, opts)
	if err != nil {
		return NoVersion, b.wrap(err, key)
	}
	if _, err := w.Write(data); err != nil {
		w.Close()
		return NoVersion, b.wrap(err, key)
	}
	if err := w.Close(); err != nil {
		if code := gcerrors.Code(err); code == gcerrors.FailedPrecondition || code == gcerrors.AlreadyExists {
			return NoVersion, ErrConflict
		}
		return NoVersion, b.wrap(err, key)
	}
	attrs, err := b.bucket.Attributes(ctx, key)
	if err != nil {
		return NoVersion, b.wrap(err, key)
	}
	return Version(attrs.ETag), nil
}

// putS3 is put on S3: one PutObject, If-Match the version, or
// If-None-Match: * for none.
func (b *Blob) putS3(ctx context.Context, key string, version Version, data []byte) (Version, error) {
	in := &s3.PutObjectInput{Bucket: &b.name, Key: &key, Body: bytes.NewReader(data),
		ContentLength: new(int64(len(data))), ContentType: new("application/json")}
	if version == NoVersion {
		in.IfNoneMatch = new("*")
	} else {
		in.IfMatch = new(string(version))
	}
	out, err := b.s3.PutObject(ctx, in)
	var api smithy.APIError
	if errors.As(err, &api) && (api.ErrorCode() == "PreconditionFailed" || api.ErrorCode() == "ConditionalRequestConflict") {
		return NoVersion, ErrConflict
	}
	if err != nil {
		return NoVersion, fmt.Errorf("%s: %w", key, err)
	}
	if out.ETag == nil {
		return NoVersion, fmt.Errorf("%s: the server named no ETag of the write", key)
	}
	return Version(*out.ETag), nil
}

func (b *Blob) lockKey() string { return b.key + ".lock" }

// Lock creates KEY.lock, holding holder, where none exists; a lock not
// renewed for breakStaleAfter (when given) is replaced, by a write
// conditional on its own version, so that two runs never both break it.
func (b *Blob) Lock(ctx context.Context, holder Holder, breakStaleAfter time.Duration) (Lease, error) {
	holder.Renewed = holder.Taken
	note, err := json.Marshal(holder)
	if err != nil {
		return nil, err
	}
	v, err := b.put(ctx, b.lockKey(), NoVersion, note)
	if errors.Is(err, ErrConflict) {
		held, heldVersion, herr := b.holder(ctx)
		if herr != nil {
			return nil, herr
		}
		if held == nil { // released meanwhile
			return b.Lock(ctx, holder, breakStaleAfter)
		}
		// Judged by the holder's own clock: the breaker's and the
		// holder's are to agree within a fraction of breakStaleAfter.
		if breakStaleAfter <= 0 || time.Since(held.lastSign()) < breakStaleAfter {
			return nil, b.locked(held)
		}
		if v, err = b.put(ctx, b.lockKey(), heldVersion, note); errors.Is(err, ErrConflict) {
			return nil, b.locked(held)
		}
	}
	if err != nil {
		return nil, err
	}
	return &blobLease{b: b, holder: holder, version: v}, nil
}

// locked is the refusal of a lock that held holds.
func (b *Blob) locked(held *Holder) *LockedError {
	return &LockedError{Store: b.url, Holder: held,
		Ends: fmt.Sprintf("once its run is gone (killed), wbsctl state unlock STATE %s releases it", held.ID)}
}

// lastSign is when the holder last said it lived.
func (h *Holder) lastSign() time.Time {
	if h.Renewed.After(h.Taken) {
		return h.Renewed
	}
	return h.Taken
}

// holder reads KEY.lock: its holder and version, nil where there is none.
func (b *Blob) holder(ctx context.Context) (*Holder, Version, error) {
	r, v, err := b.read(ctx, b.lockKey())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, NoVersion, nil
	}
	if err != nil {
		return nil, NoVersion, err
	}
	defer r.Close()
	var h Holder
	if err := json.NewDecoder(io.LimitReader(r, 64<<10)).Decode(&h); err != nil || h.ID == "" {
		return &Holder{ID: "?", Operation: "an unreadable lock"}, v, nil
	}
	return &h, v, nil
}

// Holder returns who KEY.lock names.
func (b *Blob) Holder(ctx context.Context) (*Holder, error) {
	h, _, err := b.holder(ctx)
	return h, err
}

// Unlock deletes KEY.lock when it names id.
func (b *Blob) Unlock(ctx context.Context, id string) error {
	h, _, err := b.holder(ctx)
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
	return b.wrap(b.bucket.Delete(ctx, b.lockKey()), b.lockKey())
}

func (b *Blob) Close() error { return b.bucket.Close() }

// blobLease is KEY.lock held: renewed by a write over its own version,
// so that a renewal fails once another run broke the lock.
type blobLease struct {
	b       *Blob
	holder  Holder
	version Version
}

func (l *blobLease) Renew(ctx context.Context) error {
	l.holder.Renewed = time.Now().UTC().Truncate(time.Second)
	note, err := json.Marshal(l.holder)
	if err != nil {
		return err
	}
	v, err := l.b.put(ctx, l.b.lockKey(), l.version, note)
	if errors.Is(err, ErrConflict) {
		return fmt.Errorf("the state's lock was taken from this run: %w", ErrLocked)
	}
	if err != nil {
		return err
	}
	l.version = v
	return nil
}

// Release deletes KEY.lock if it still names this lease's holder.
func (l *blobLease) Release(ctx context.Context) error {
	h, _, err := l.b.holder(ctx)
	if err != nil || h == nil || h.ID != l.holder.ID {
		return err
	}
	return l.b.wrap(l.b.bucket.Delete(ctx, l.b.lockKey()), l.b.lockKey())
}
