package sdk

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"syscall"
	"time"
)

// RetryPolicy says how often and how long the client retries a request.
//
// Requests that converge when repeated (list, update, delete, removal of
// links, the token exchange) are retried after transport errors and after
// 429, 502, 503 and 504. A create or a flow execution is retried only where
// the request provably never reached the platform: the connection was
// refused, or the platform answered 429, or 503 with Retry-After. Any other
// failure of those is returned as ErrOutcomeUnknown.
//
// Waits grow exponentially from BaseDelay up to MaxDelay with full jitter
// (a random wait between zero and the bound). A Retry-After of the answer
// replaces that wait, capped at MaxRetryAfter; so does RateLimit-Reset,
// on a 429 or when RateLimit-Remaining is 0. A wait that would end after
// the context's deadline is not begun.
type RetryPolicy struct {
	// MaxAttempts counts the first attempt; 1 disables retries. Default 5.
	// A negative field of the policy is an error of WithRetryPolicy.
	MaxAttempts int
	// BaseDelay is the bound of the first wait. Default 250 ms.
	BaseDelay time.Duration
	// MaxDelay caps the bound of any computed wait. Default 20 s.
	MaxDelay time.Duration
	// MaxRetryAfter caps a wait the platform asks for. Default 60 s.
	MaxRetryAfter time.Duration

	// retry500 is WithServerErrorRetries.
	retry500 bool
}

// DefaultRetryPolicy returns the policy a client has unless told otherwise.
func DefaultRetryPolicy() RetryPolicy { return RetryPolicy{}.withDefaults() }

// check refuses negative fields: a MaxAttempts of -1 may mean "no limit"
// or "no retries" to its writer, and neither reading is the default's.
func (p RetryPolicy) check() error {
	var errs []error
	if p.MaxAttempts < 0 {
		errs = append(errs, fmt.Errorf("MaxAttempts %d: want 1 or more, or 0 for the default", p.MaxAttempts))
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"BaseDelay", p.BaseDelay}, {"MaxDelay", p.MaxDelay}, {"MaxRetryAfter", p.MaxRetryAfter}} {
		if d.v < 0 {
			errs = append(errs, fmt.Errorf("%s %v: want a positive duration, or 0 for the default", d.name, d.v))
		}
	}
	return errors.Join(errs...)
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = 5
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = 250 * time.Millisecond
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = 20 * time.Second
	}
	if p.MaxRetryAfter <= 0 {
		p.MaxRetryAfter = 60 * time.Second
	}
	return p
}

// decide tells whether to retry req after err on the given attempt, and how
// long to wait first.
func (p RetryPolicy) decide(req *request, err error, attempt int, now time.Time) (time.Duration, bool) {
	if attempt >= p.MaxAttempts || permanent(err) {
		return 0, false
	}
	var apiErr *APIError
	isAPI := errors.As(err, &apiErr)
	switch {
	case req.safe || req.noAuth:
		if isAPI && !retryableStatus(apiErr.StatusCode) &&
			!(p.retry500 && apiErr.StatusCode == http.StatusInternalServerError) {
			return 0, false
		}
	case isAPI:
		// The platform answered without acting only for 429, and for
		// 503 when it says when to come back.
		if !refusedUnacted(apiErr) {
			return 0, false
		}
	default:
		if !neverSent(err) {
			return 0, false
		}
	}
	if isAPI {
		if wait := apiErr.RetryAfter(now); wait > 0 {
			return min(wait, p.MaxRetryAfter), true
		}
	}
	return p.backoff(attempt), true
}

// permanent reports failures that a retry cannot mend: a certificate that
// does not verify stays so, and so does an answer too large to read.
func permanent(err error) bool {
	if errors.Is(err, ErrBadResponse) {
		return true
	}
	var tlsErr *TLSError
	return errors.As(err, &tlsErr)
}

// backoff is the full-jitter wait after the given attempt.
func (p RetryPolicy) backoff(attempt int) time.Duration {
	bound := p.MaxDelay
	if shift := attempt - 1; shift < 30 {
		if b := p.BaseDelay << shift; b > 0 && b < bound {
			bound = b
		}
	}
	return rand.N(bound + 1)
}

func retryableStatus(code int) bool {
	switch code {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// neverSent reports whether a transport error proves that the request did
// not reach the platform: the connection was never made.
func neverSent(err error) bool {
	var tlsErr *TLSError
	if errors.Is(err, syscall.ECONNREFUSED) || errors.As(err, &tlsErr) {
		return true
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Op == "dial" && !errors.Is(err, os.ErrDeadlineExceeded) {
		return true
	}
	var dnsErr *net.DNSError
	return errors.As(err, &dnsErr)
}

// outcomeUnknown reports whether a failed request may have been acted on.
func outcomeUnknown(err error) bool {
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		return apiErr.StatusCode >= 500 && !refusedUnacted(apiErr)
	}
	return !neverSent(err)
}

// refusedUnacted reports the answers by which the platform refuses a
// request without acting on it: a 429, and a 503 with Retry-After. A 503
// with only RateLimit headers does not say so: it may come from a request
// that failed half-way.
func refusedUnacted(apiErr *APIError) bool {
	return apiErr.StatusCode == http.StatusTooManyRequests ||
		apiErr.StatusCode == http.StatusServiceUnavailable && apiErr.Rate.HasRetryAfter
}
