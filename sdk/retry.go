package sdk

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"strings"
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
// (a random wait between zero and the bound). A Retry-After or
// RateLimit-Reset header of the answer replaces that wait, capped at
// MaxRetryAfter.
type RetryPolicy struct {
	// MaxAttempts counts the first attempt; 1 disables retries. Default 5.
	MaxAttempts int
	// BaseDelay is the bound of the first wait. Default 250 ms.
	BaseDelay time.Duration
	// MaxDelay caps the bound of any computed wait. Default 20 s.
	MaxDelay time.Duration
	// MaxRetryAfter caps a wait the platform asks for. Default 60 s.
	MaxRetryAfter time.Duration
	// RetryServerError also retries a 500 answer of a request that is
	// safe to repeat (never a create's). Off by default: a 500 may be a
	// fault that a retry only repeats; a bulk load turns it on, where a
	// few more attempts cost less than a failed record.
	RetryServerError bool
}

// DefaultRetryPolicy returns the policy a client has unless told otherwise.
func DefaultRetryPolicy() RetryPolicy { return RetryPolicy{}.withDefaults() }

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
func (p RetryPolicy) decide(req *request, err error, attempt int) (time.Duration, bool) {
	if attempt >= p.MaxAttempts || permanent(err) {
		return 0, false
	}
	var apiErr *APIError
	isAPI := errors.As(err, &apiErr)
	switch {
	case req.safe || req.noAuth:
		if isAPI && !retryableStatus(apiErr.StatusCode) &&
			!(p.RetryServerError && apiErr.StatusCode == http.StatusInternalServerError) {
			return 0, false
		}
	case isAPI:
		// The platform answered without acting only for 429, and for
		// 503 when it says when to come back.
		if apiErr.StatusCode != http.StatusTooManyRequests &&
			!(apiErr.StatusCode == http.StatusServiceUnavailable && apiErr.RetryAfter > 0) {
			return 0, false
		}
	default:
		if !neverSent(err) {
			return 0, false
		}
	}
	if isAPI && apiErr.RetryAfter > 0 {
		return min(apiErr.RetryAfter, p.MaxRetryAfter), true
	}
	return p.backoff(attempt), true
}

// permanent reports failures that a retry cannot mend: a certificate that
// does not verify stays so, and so does an answer too large to read.
func permanent(err error) bool {
	if errors.Is(err, ErrBadResponse) {
		return true
	}
	var verify *tls.CertificateVerificationError
	var unknownCA x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	return errors.As(err, &verify) || errors.As(err, &unknownCA) || errors.As(err, &hostname) || errors.As(err, &invalid) ||
		clientCertificateRefused(err)
}

// clientCertificateRefused reports a TLS alert by which the platform
// refused the client's certificate, or its absence. crypto/tls does not
// export the type of a received alert, only its text.
func clientCertificateRefused(err error) bool {
	msg := err.Error()
	for _, alert := range []string{"tls: certificate required", "tls: unknown certificate authority", "tls: expired certificate", "tls: bad certificate"} {
		if strings.Contains(msg, "remote error: "+alert) {
			return true
		}
	}
	return false
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
	if errors.Is(err, syscall.ECONNREFUSED) {
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
		switch {
		case apiErr.StatusCode == http.StatusTooManyRequests,
			apiErr.StatusCode == http.StatusServiceUnavailable && apiErr.RetryAfter > 0,
			apiErr.StatusCode < 500:
			return false
		}
		return true
	}
	return !neverSent(err)
}
