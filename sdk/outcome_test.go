package sdk

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"
)

// A create or a flow execution that the caller's own context cuts off
// after the request went out may have been acted on: the error says so,
// and still matches the context's error. One whose context ended before
// anything was sent is a plain context error (issue 28, finding 1).
func TestCallerContextCuttingOffACreate(t *testing.T) {
	calls := map[string]func(c *Client, ctx context.Context) error{
		"create": func(c *Client, ctx context.Context) error {
			_, err := c.WBSElements.Create(ctx, &CreateWBSElementRequest{Code: "A"})
			return err
		},
		"execute": func(c *Client, ctx context.Context) error {
			_, err := c.Flows.Execute(ctx, "flow1", json.RawMessage(`{}`))
			return err
		},
	}
	ends := map[string]struct {
		ctx  func(f *fakePlatform) (context.Context, context.CancelFunc)
		want error
	}{
		"cancelled in flight": {func(f *fakePlatform) (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			f.handle = func(w http.ResponseWriter, r *http.Request, n int) bool {
				cancel() // the platform has the request; the caller gives up
				waitForClient(r)
				return true
			}
			return ctx, cancel
		}, context.Canceled},
		"deadline in flight": {func(f *fakePlatform) (context.Context, context.CancelFunc) {
			f.handle = func(w http.ResponseWriter, r *http.Request, n int) bool {
				waitForClient(r) // slower than the caller's deadline
				return true
			}
			return context.WithTimeout(context.Background(), 50*time.Millisecond)
		}, context.DeadlineExceeded},
	}
	for name, call := range calls {
		for end, tt := range ends {
			t.Run(name+"/"+end, func(t *testing.T) {
				f := newFakePlatform(t)
				c := f.client(t)
				ctx, cancel := tt.ctx(f)
				defer cancel()
				err := call(c, ctx)
				var unknown *OutcomeUnknownError
				if !errors.As(err, &unknown) || !errors.Is(err, ErrOutcomeUnknown) || !errors.Is(err, tt.want) {
					t.Fatalf("err = %v, want an *OutcomeUnknownError matching %v", err, tt.want)
				}
				if got := f.requestCount(); got != 1 {
					t.Fatalf("sent %d times, want once", got)
				}
			})
		}
		t.Run(name+"/ended before sending", func(t *testing.T) {
			f := newFakePlatform(t)
			c := f.client(t)
			if _, err := c.Token(context.Background()); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			err := call(c, ctx)
			if !errors.Is(err, context.Canceled) || errors.Is(err, ErrOutcomeUnknown) {
				t.Fatalf("err = %v, want context.Canceled and no unknown outcome", err)
			}
			if got := f.requestCount(); got != 0 {
				t.Fatalf("sent %d times, want never", got)
			}
		})
	}
}

// waitForClient blocks until the client drops the request. net/http sees
// that only once the body is read.
func waitForClient(r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	<-r.Context().Done()
}

// A 429 whose Retry-After lies beyond the context's deadline returns at
// once with an error that matches both the 429 and the deadline (issue 28,
// finding 2). No duration is asserted: before the fix the call slept to
// the deadline and returned a bare context error.
func TestRetryAfterBeyondTheDeadline(t *testing.T) {
	calls := map[string]func(c *Client, ctx context.Context) error{
		"delete": func(c *Client, ctx context.Context) error {
			_, err := c.WBSElements.Delete(ctx, "A")
			return err
		},
		"create": func(c *Client, ctx context.Context) error {
			_, err := c.WBSElements.Create(ctx, &CreateWBSElementRequest{Code: "A"})
			return err
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			f := newFakePlatform(t)
			f.handle = func(w http.ResponseWriter, r *http.Request, n int) bool {
				w.Header().Set("Retry-After", "30")
				w.WriteHeader(http.StatusTooManyRequests)
				return true
			}
			c := f.client(t, WithRetryPolicy(RetryPolicy{MaxRetryAfter: time.Minute}))
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			err := call(c, ctx)
			var apiErr *APIError
			if !errors.Is(err, ErrRateLimited) || !errors.As(err, &apiErr) || !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("err = %v, want the 429 and context.DeadlineExceeded", err)
			}
			if errors.Is(err, ErrOutcomeUnknown) || ctx.Err() != nil {
				t.Fatalf("err = %v, context %v: want the refusal said before the deadline", err, ctx.Err())
			}
			if got := f.requestCount(); got != 1 {
				t.Fatalf("sent %d times, want once", got)
			}
		})
	}
}
