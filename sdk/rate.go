package sdk

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Rate is what one answer says of the platform's rate limit, read from the
// RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset headers (or,
// where those are absent, X-RateLimit-Limit, X-RateLimit-Remaining and
// X-RateLimit-Reset, the most common spelling on other platforms) and
// from Retry-After. The platform documents 240 requests a minute per key
// and sends RateLimit headers; the spec shows neither their form nor a
// 429's, so each is read in every form seen in the wild.
type Rate struct {
	// Limit is RateLimit-Limit, the requests of a window; -1 when absent.
	Limit int
	// Remaining is RateLimit-Remaining, the requests left in the window;
	// -1 when absent.
	Remaining int
	// Reset is when the window ends: RateLimit-Reset read as seconds from
	// now or, when it is as large as a Unix time, as one. Zero when absent.
	Reset time.Time
	// RetryAfter is the wait Retry-After asks for, in seconds or as an
	// HTTP date; meaningful when HasRetryAfter.
	RetryAfter    time.Duration
	HasRetryAfter bool
}

// ParseRate reads the rate headers of an answer received at now. A header
// that is missing, negative or unreadable is absent in the result.
func ParseRate(h http.Header, now time.Time) Rate {
	names := rateHeaders[0]
	if firstValue(h, names.limit) == "" && firstValue(h, names.remaining) == "" && firstValue(h, names.reset) == "" {
		names = rateHeaders[1]
	}
	r := Rate{Limit: headerInt(h, names.limit), Remaining: headerInt(h, names.remaining)}
	if s, ok := headerSeconds(h, names.reset); ok {
		if s >= 1e9 {
			// Some servers send the end of the window as a Unix time.
			r.Reset = time.Unix(0, 0).Add(fromSeconds(s))
		} else {
			r.Reset = now.Add(fromSeconds(s))
		}
	}
	if v := strings.TrimSpace(firstValue(h, "Retry-After")); v != "" {
		if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
			r.RetryAfter, r.HasRetryAfter = fromSeconds(s), true
		} else if t, err := http.ParseTime(v); err == nil {
			r.RetryAfter, r.HasRetryAfter = max(t.Sub(now), 0), true
		}
	}
	return r
}

// rateHeaders are the names of the RateLimit headers, in the standard
// spelling and in the X- one, in canonical form (Ratelimit, not
// RateLimit), as net/http keeps a header's name.
var rateHeaders = [2]struct{ limit, remaining, reset string }{
	{"Ratelimit-Limit", "Ratelimit-Remaining", "Ratelimit-Reset"},
	{"X-Ratelimit-Limit", "X-Ratelimit-Remaining", "X-Ratelimit-Reset"},
}

// firstValue is h.Get(name) for a name in canonical form, looked up as it
// is: every answer's headers are read, and Get would check and rewrite
// each name first.
func firstValue(h http.Header, name string) string {
	if vs := h[name]; len(vs) > 0 {
		return vs[0]
	}
	return ""
}

// Exhausted reports whether the answer says that no request is left in the
// window.
func (r Rate) Exhausted() bool { return r.Remaining == 0 }

// UntilReset is the time from now to the end of the window, zero when the
// answer gave none or it is past.
func (r Rate) UntilReset(now time.Time) time.Duration {
	if r.Reset.IsZero() {
		return 0
	}
	return max(r.Reset.Sub(now), 0)
}

// Wait is how long the answer asks the client to wait before trying
// again: Retry-After, else the end of the window when RateLimit-Remaining
// says none is left, else zero. A missing RateLimit-Remaining says
// nothing of the window: a 503 that carries only RateLimit-Reset is not a
// refusal for the rate.
func (r Rate) Wait(now time.Time) time.Duration {
	if r.HasRetryAfter {
		return r.RetryAfter
	}
	if r.Exhausted() {
		return r.UntilReset(now)
	}
	return 0
}

// WaitAfter is the wait an answer of the given status asks for: Wait,
// except that a 429 says by its status that the window is spent, so its
// RateLimit-Reset counts even without a RateLimit-Remaining. The SDK's
// retries and a Limiter that paces many calls read the same wait here.
func (r Rate) WaitAfter(status int, now time.Time) time.Duration {
	if status == http.StatusTooManyRequests && !r.HasRetryAfter {
		return r.UntilReset(now)
	}
	return r.Wait(now)
}

func headerSeconds(h http.Header, name string) (float64, bool) {
	v := strings.TrimSpace(firstValue(h, name))
	if v == "" {
		return 0, false
	}
	s, err := strconv.ParseFloat(v, 64)
	if err != nil || s < 0 {
		return 0, false
	}
	return s, true
}

func headerInt(h http.Header, name string) int {
	s, ok := headerSeconds(h, name)
	if !ok || s > 1<<31 {
		return -1
	}
	return int(s)
}
