package statestore

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// s3Objects is a bucket of S3, through the AWS SDK's S3 client alone:
// every write one PutObject, conditional on the version read.
type s3Objects struct {
	client *s3.Client
	bucket string
}

// s3Query are the members of an s3:// URL's query that wbsctl reads;
// any other is refused, so that a setting is never silently ignored.
var s3Query = []string{"endpoint", "region", "use_path_style", "profile"}

// openS3 opens the bucket of u (s3://BUCKET/...), its endpoint, region,
// path style and profile from the query, its credential from the usual
// AWS environment variables and files.
func openS3(ctx context.Context, u *url.URL) (*s3Objects, error) {
	q := u.Query()
	for name := range q {
		if !slices.Contains(s3Query, name) {
			return nil, fmt.Errorf("--state %s: the query member %q is not one wbsctl reads (%s)", Display(u), name, strings.Join(s3Query, ", "))
		}
	}
	var opts []func(*config.LoadOptions) error
	if r := q.Get("region"); r != "" {
		opts = append(opts, config.WithRegion(r))
	}
	if p := q.Get("profile"); p != "" {
		opts = append(opts, config.WithSharedConfigProfile(p))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("--state %s: the AWS configuration: %w", Display(u), err)
	}
	if cfg.Region == "" {
		// An S3 server of its own (versitygw, MinIO) takes any region
		// in a signature; AWS answers a wrong one with the right one.
		cfg.Region = "us-east-1"
	}
	pathStyle := false
	if v := q.Get("use_path_style"); v != "" {
		if pathStyle, err = strconv.ParseBool(v); err != nil {
			return nil, fmt.Errorf("--state %s: use_path_style=%q: want true or false", Display(u), v)
		}
	}
	endpoint := q.Get("endpoint")
	if endpoint != "" {
		e, err := url.Parse(endpoint)
		if err != nil || (e.Scheme != "http" && e.Scheme != "https") || e.Host == "" {
			return nil, fmt.Errorf("--state %s: endpoint: want an http:// or https:// address", Display(u))
		}
	}
	client := s3.NewFromConfig(cfg, func(o *s3.Options) {
		// Checksums only where S3 requires them: a server that keeps an
		// object's checksum apart from its data (versitygw's posix
		// backend) can answer a read racing a write with the new data
		// and the old checksum, which the SDK would refuse. A state is
		// checked whole as it is read, and versioned by its ETag.
		o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
		o.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
		o.UsePathStyle = pathStyle
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
		}
	})
	return &s3Objects{client: client, bucket: u.Host}, nil
}

func (o *s3Objects) get(ctx context.Context, key string) (io.ReadCloser, object, error) {
	out, err := o.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &o.bucket, Key: &key})
	if err != nil {
		var notFound interface{ ErrorCode() string }
		if errors.As(err, &notFound) && (notFound.ErrorCode() == "NoSuchKey" || notFound.ErrorCode() == "NotFound") {
			return nil, object{}, fmt.Errorf("%s: %w", key, fs.ErrNotExist)
		}
		return nil, object{}, fmt.Errorf("%s: %w", key, err)
	}
	obj := object{version: Version(aws.ToString(out.ETag)), modified: aws.ToTime(out.LastModified)}
	obj.serverNow, _ = awsmiddleware.GetServerTime(out.ResultMetadata)
	if obj.version == NoVersion {
		out.Body.Close()
		return nil, object{}, fmt.Errorf("%s: the server named no ETag of the object", key)
	}
	return checkedBody(out.Body, obj.version, key), obj, nil
}

// ErrTornRead is a read whose content is not the version the server
// named: it raced a write (versitygw stores a new object's ETag before
// it puts its data in place). What it read is not used.
var ErrTornRead = errors.New("the object changed as it was read")

// checkedBody is body, whose MD5 is checked against version at its end
// where version is an MD5 (as S3 names an object written in one part
// without KMS): a read that raced a write ends in ErrTornRead, so that
// no write is ever made over a version whose content was not read.
func checkedBody(body io.ReadCloser, version Version, key string) io.ReadCloser {
	want, err := hex.DecodeString(strings.Trim(string(version), `"`))
	if err != nil || len(want) != md5.Size {
		return body
	}
	return &md5Body{ReadCloser: body, want: want, h: md5.New(), key: key}
}

type md5Body struct {
	io.ReadCloser
	want []byte
	h    hash.Hash
	key  string
}

func (b *md5Body) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.h.Write(p[:n])
	if err == io.EOF && !bytes.Equal(b.h.Sum(nil), b.want) {
		return n, fmt.Errorf("%s: %w", b.key, ErrTornRead)
	}
	return n, err
}

func (o *s3Objects) put(ctx context.Context, key string, version Version, data []byte) (Version, error) {
	in := &s3.PutObjectInput{Bucket: &o.bucket, Key: &key, Body: bytes.NewReader(data),
		ContentLength: aws.Int64(int64(len(data))), ContentType: aws.String("application/json")}
	if version == NoVersion {
		in.IfNoneMatch = aws.String("*")
	} else {
		in.IfMatch = aws.String(string(version))
	}
	// A conditional write is not repeated by the SDK: a retry of a write
	// whose answer was lost would be refused as a conflict. The store's
	// callers decide what a failed write means.
	out, err := o.client.PutObject(ctx, in, func(o *s3.Options) { o.RetryMaxAttempts = 1 })
	if conflict(err) {
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

// conflict reports a write refused for its condition: 412, or S3's 409
// for two conditional writes of one key at once. An If-Match on an
// object that is gone is 404 on some servers.
func conflict(err error) bool {
	var api smithy.APIError
	if errors.As(err, &api) {
		switch api.ErrorCode() {
		case "PreconditionFailed", "ConditionalRequestConflict", "NoSuchKey":
			return true
		}
	}
	var re *smithyhttp.ResponseError
	return errors.As(err, &re) && (re.HTTPStatusCode() == http.StatusPreconditionFailed)
}

func (o *s3Objects) close() error { return nil }

// object is what a read of an object tells besides its content: its
// version, when the server last wrote it, and the server's time when it
// answered (zero where it said neither).
type object struct {
	version   Version
	modified  time.Time
	serverNow time.Time
}

// age is how long ago the server last wrote the object, by the server's
// clock alone; ok is false where the server did not say.
func (o object) age() (time.Duration, bool) {
	if o.modified.IsZero() || o.serverNow.IsZero() {
		return 0, false
	}
	return o.serverNow.Sub(o.modified), true
}
