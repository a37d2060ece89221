package ratelimit

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/wbsctl/wbsctl/sdk"
	"golang.org/x/time/rate"
)

func TestParsePerMinute(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		err  bool
	}{
		{"240/min", 240, false},
		{"4/s", 240, false},
		{"600/h", 10, false},
		{"120", 120, false},
		{"0", 0, false},
		{"unlimited", 0, false},
		{"fast", 0, true},
		{"10/day", 0, true},
		{"-1/s", 0, true},
	}
	for _, tt := range tests {
		got, err := ParsePerMinute(tt.in)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("ParsePerMinute(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func header(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}

func TestLimiterPausesOnExhaustedWindow(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	tests := []struct {
		name   string
		status int
		h      http.Header
		pause  time.Duration
	}{
		{"429 with Retry-After", 429, header("Retry-After", "7"), 7 * time.Second},
		{"429 with Retry-After as an HTTP date", 429, header("Retry-After", now.Add(9*time.Second).UTC().Format(http.TimeFormat)), 9 * time.Second},
		{"429 with reset as a Unix time", 429, header("RateLimit-Reset", "1700000005"), 5 * time.Second},
		{"window used up, reset as a Unix time", 200, header("RateLimit-Remaining", "0", "RateLimit-Reset", "1700000004"), 4 * time.Second},
		{"window used up, reset as a Unix time past", 200, header("RateLimit-Remaining", "0", "RateLimit-Reset", "1699999990"), 0},
		{"429 with reset only", 429, header("RateLimit-Reset", "3"), 3 * time.Second},
		{"429 bare", 429, header(), time.Second},
		{"window used up", 200, header("RateLimit-Remaining", "0", "RateLimit-Reset", "12"), 12 * time.Second},
		{"429 with a year of Retry-After", 429, header("Retry-After", "31536000"), maxPause},
		{"429 with an absurd Retry-After", 429, header("Retry-After", "1e300"), maxPause},
		{"window used up for a day", 200, header("RateLimit-Remaining", "0", "RateLimit-Reset", "86400"), maxPause},
		{"window open", 200, header("RateLimit-Remaining", "5", "RateLimit-Reset", "12"), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := New(240)
			l.now = func() time.Time { return now }
			l.observe(tt.status, sdk.ParseRate(tt.h, now))
			got := l.pauseUntil.Sub(now)
			if tt.pause == 0 && !l.pauseUntil.IsZero() || tt.pause != 0 && got != tt.pause {
				t.Fatalf("pause %v, want %v", got, tt.pause)
			}
			if tt.pause > 0 {
				// A waiter gives up with its context instead of sleeping
				// through the pause.
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				if err := l.Wait(ctx); !errors.Is(err, context.Canceled) {
					t.Fatalf("Wait during a pause: %v", err)
				}
			}
		})
	}
}

func TestLimiterSpreadsTheRestOfTheWindow(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	l := New(240) // 4/s
	l.now = func() time.Time { return now }
	l.observe(200, sdk.ParseRate(header("RateLimit-Remaining", "10", "RateLimit-Reset", "20"), now))
	if got := l.bucket.Limit(); got != 0.5 {
		t.Fatalf("limit %v/s, want 0.5/s for 10 requests in 20 s", got)
	}
	l.observe(200, sdk.ParseRate(header("RateLimit-Remaining", "200", "RateLimit-Reset", "10"), now))
	if got := l.bucket.Limit(); got != 4 {
		t.Fatalf("limit %v/s, want the configured 4/s back", got)
	}
	// The end of the window as a Unix time: 10 requests in 20 s.
	l.observe(200, sdk.ParseRate(header("RateLimit-Remaining", "10", "RateLimit-Reset", "1700000020"), now))
	if got := l.bucket.Limit(); got != 0.5 {
		t.Fatalf("limit %v/s with a Unix-time reset, want 0.5/s", got)
	}
	u := New(0)
	if u.bucket.Limit() != rate.Inf {
		t.Fatal("no rate should be unlimited")
	}
}
