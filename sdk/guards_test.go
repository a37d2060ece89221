package sdk

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// A server whose answer is no HTTP at all, but the token it was sent,
// makes a transport error that quotes it (net/http's "malformed HTTP
// response"): neither the error nor the debug log shows the token, the
// client secret, or the token the client was issued.
func TestTransportErrorQuotingATokenIsRedacted(t *testing.T) {
	const secret = "s3cr3t-of-the-client-0123456789"
	const issued = "issued-token-of-the-platform-0123456789"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/auth/tokens" {
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{"accessToken": issued, "expiresIn": 3600})
			return
		}
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		// The first line of the answer is what net/http quotes.
		fmt.Fprintf(buf, "%s %s\r\n\r\n", r.Header.Get("Authorization"), secret)
		buf.Flush()
	}))
	defer srv.Close()
	var log bytes.Buffer
	c, err := NewClient(srv.URL, WithCredentials("integrationhub-1", secret), WithRetryPolicy(RetryPolicy{MaxAttempts: 1}),
		WithLogger(slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	if err != nil {
		t.Fatal(err)
	}
	ctx := hangGuard(t)
	_, err = c.WBSElements.List(ctx, nil)
	failOnHang(t, ctx, err)
	if err == nil {
		t.Fatal("a malformed answer was taken")
	}
	if !strings.Contains(err.Error(), "malformed HTTP") {
		t.Fatalf("err = %v, want net/http's malformed HTTP response", err)
	}
	for _, s := range []string{secret, issued} {
		if strings.Contains(err.Error(), s) {
			t.Fatalf("the error shows %q: %v", s, err)
		}
		if strings.Contains(log.String(), s) {
			t.Fatalf("the debug log shows %q:\n%s", s, log.String())
		}
	}
	if !strings.Contains(err.Error(), "[REDACTED]") {
		t.Fatalf("err = %v, want it to show the redaction", err)
	}
}

// A retry waits as long as the platform's Retry-After asks (within
// MaxRetryAfter), not the shorter backoff: a 429 says when to come back.
func TestRetryWaitsForRetryAfter(t *testing.T) {
	var mu sync.Mutex
	var at []time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		at = append(at, time.Now())
		n := len(at)
		mu.Unlock()
		if n == 1 {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"data":[],"hits":0}`)
	}))
	defer srv.Close()
	c, err := NewClient(srv.URL, WithAccessToken("static-token-0123456789"),
		WithRetryPolicy(RetryPolicy{MaxAttempts: 2, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := hangGuard(t)
	_, err = c.WBSElements.List(ctx, nil)
	failOnHang(t, ctx, err)
	if err != nil {
		t.Fatalf("after a 429 with Retry-After: 1: %v, want the retry's answer", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(at) != 2 {
		t.Fatalf("%d attempts, want 2", len(at))
	}
	if waited := at[1].Sub(at[0]); waited < 900*time.Millisecond {
		t.Fatalf("the retry came %v after a 429 whose Retry-After asked 1 s", waited)
	}
}
