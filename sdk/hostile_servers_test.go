package sdk

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"
)

// hangGuard bounds a test's calls: a call still running when it ends is a
// hang, whatever the SDK's own timeouts say.
func hangGuard(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func failOnHang(t *testing.T, ctx context.Context, err error) {
	t.Helper()
	if ctx.Err() != nil {
		t.Fatalf("the call outlived the hang guard: %v", err)
	}
}

// Whatever expiresIn the token exchange answers with, the token is used for
// a positive lifetime of at most maxLifetime, shared by the calls made
// within it, and exchanged again only once it has run out.
func TestHostileTokenLifetimes(t *testing.T) {
	tests := []struct {
		name      string
		expiresIn string // JSON text; empty leaves the member out
		want      time.Duration
	}{
		{"zero", "0", fallbackLifetime},
		{"negative", "-3600", fallbackLifetime},
		{"numeric string", `"3600"`, time.Hour},
		{"text", `"abc"`, fallbackLifetime},
		{"missing", "", fallbackLifetime},
		{"null", "null", fallbackLifetime},
		{"boolean", "true", fallbackLifetime},
		{"object", "{}", fallbackLifetime},
		{"infinity as text", `"Inf"`, fallbackLifetime},
		{"a year", "31536000", maxLifetime},
		{"beyond a Duration", "1e10", maxLifetime},
		{"largest int64", "9223372036854775807", maxLifetime},
		{"largest float", "1.7976931348623157e308", maxLifetime},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakePlatform(t)
			f.expiresIn = tt.expiresIn
			start := time.Unix(1_700_000_000, 0)
			var mu sync.Mutex
			now := start
			clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
			advance := func(to time.Time) { mu.Lock(); defer mu.Unlock(); now = to }
			c := f.client(t, withClock(clock))
			ctx := hangGuard(t)
			// Ten calls a second apart: well inside even the fallback
			// lifetime's renewal window.
			for i := range 10 {
				if _, err := c.WBSElements.Delete(ctx, "A"); err != nil {
					t.Fatalf("call %d: %v", i, err)
				}
				advance(start.Add(time.Duration(i+1) * time.Second))
			}
			if got := f.exchanges.Load(); got != 1 {
				t.Fatalf("10 calls made %d token exchanges, want 1", got)
			}
			tok, err := c.Token(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got := tok.ExpiresAt.Sub(start); got != tt.want {
				t.Fatalf("token lifetime %v, want %v", got, tt.want)
			}
			advance(tok.ExpiresAt.Add(time.Second))
			if _, err := c.WBSElements.Delete(ctx, "A"); err != nil {
				t.Fatal(err)
			}
			if got := f.exchanges.Load(); got != 2 {
				t.Fatalf("%d token exchanges after the token ran out, want 2", got)
			}
		})
	}
}

// A Retry-After or RateLimit-Reset of a year or more, in any of its forms,
// is capped at MaxRetryAfter: the call goes on after the capped wait.
func TestHostileRetryAfterIsCapped(t *testing.T) {
	year := 365 * 24 * time.Hour
	tests := []struct {
		name   string
		status int
		header func(now time.Time) http.Header
	}{
		{"seconds", 503, func(time.Time) http.Header { return http.Header{"Retry-After": {"31536000"}} }},
		{"HTTP date", 503, func(now time.Time) http.Header {
			return http.Header{"Retry-After": {now.Add(year).UTC().Format(http.TimeFormat)}}
		}},
		{"HTTP date in year 9999", 429, func(time.Time) http.Header {
			return http.Header{"Retry-After": {"Fri, 31 Dec 9999 23:59:59 GMT"}}
		}},
		{"seconds beyond a Duration", 429, func(time.Time) http.Header { return http.Header{"Retry-After": {"1e300"}} }},
		{"RateLimit-Reset in seconds", 429, func(time.Time) http.Header {
			return http.Header{"Ratelimit-Remaining": {"0"}, "Ratelimit-Reset": {"31536000"}}
		}},
		{"RateLimit-Reset as a Unix time", 429, func(now time.Time) http.Header {
			return http.Header{"Ratelimit-Reset": {itoa(now.Add(year).Unix())}}
		}},
		{"RateLimit-Reset beyond a Duration", 429, func(time.Time) http.Header {
			return http.Header{"Ratelimit-Reset": {"1e300"}}
		}},
	}
	policy := DefaultRetryPolicy()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := time.Now()
			h := tt.header(now)
			if got := retryAfter(h, now); got < year-time.Minute {
				t.Fatalf("asked wait read as %v, want a year or more", got)
			}
			apiErr := &APIError{StatusCode: tt.status, RetryAfter: retryAfter(h, now)}
			wait, retry := policy.decide(&request{safe: true}, apiErr, 1)
			if !retry || wait != policy.MaxRetryAfter {
				t.Fatalf("decide = %v, %v; want a retry after MaxRetryAfter (%v)", wait, retry, policy.MaxRetryAfter)
			}

			f := newFakePlatform(t)
			f.handle = func(w http.ResponseWriter, r *http.Request, n int) bool {
				if n > 1 {
					return false
				}
				for k, v := range tt.header(time.Now()) {
					w.Header()[k] = v
				}
				w.WriteHeader(tt.status)
				return true
			}
			ctx := hangGuard(t)
			_, err := f.client(t).WBSElements.Delete(ctx, "A") // MaxRetryAfter of 2 ns
			failOnHang(t, ctx, err)
			if err != nil {
				t.Fatalf("err = %v, want the capped wait and a successful retry", err)
			}
			if got := f.requestCount(); got != 2 {
				t.Fatalf("%d attempts, want 2", got)
			}
		})
	}
}
