// The options of NewClient, and the pacing interfaces a Limiter may
// implement.

package sdk

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"time"

	"golang.org/x/time/rate"
)

// Option configures a Client in NewClient.
type Option func(*Client)

// WithCredentials makes the client exchange the integration's key and
// secret for access tokens (spec 5.3), cached and renewed as needed.
func WithCredentials(clientID, clientSecret string) Option {
	return func(c *Client) {
		switch {
		case clientID == "":
			c.fail(errors.New("WithCredentials: the client id is empty"))
		case clientSecret == "":
			c.fail(errors.New("WithCredentials: the client secret is empty"))
		}
		c.clientID, c.clientSecret = clientID, clientSecret
	}
}

// WithAccessToken makes the client send a token obtained elsewhere. The
// client cannot renew it: once the platform rejects it, calls fail with
// ErrUnauthorized. It cannot be combined with WithCredentials or
// WithTokenSource: NewClient fails rather than pick one credential over
// another.
func WithAccessToken(token string) Option {
	return func(c *Client) { c.staticToken = token }
}

// WithTokenSource makes the client send the tokens ts supplies, asking it
// before every attempt; ts caches and renews them as it sees fit. The
// client cannot renew a token the platform rejects: a 401 is returned as
// ErrUnauthorized, as with WithAccessToken. It cannot be combined with
// WithCredentials or WithAccessToken.
func WithTokenSource(ts TokenSource) Option {
	return func(c *Client) {
		if ts == nil {
			c.fail(errors.New("WithTokenSource: the token source is nil"))
			return
		}
		c.source = ts
	}
}

// WithHTTPClient sets the HTTP client the SDK sends through. Its Timeout, if
// any, bounds each attempt together with WithTimeout. A redirect to another
// origin than the base URL's is never followed; its CheckRedirect, if any,
// decides on the others.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) {
		switch {
		case hc == nil:
			c.fail(errors.New("WithHTTPClient: the client is nil"))
		case c.hcFrom != "":
			c.fail(fmt.Errorf("WithHTTPClient and %s both given: set the transport on the http.Client", c.hcFrom))
		default:
			c.hc, c.hcFrom = hc, "WithHTTPClient"
		}
	}
}

// WithTransport sets the round tripper of the SDK's own HTTP client. It
// cannot be combined with WithHTTPClient: set the transport on that
// client instead.
func WithTransport(rt http.RoundTripper) Option {
	return func(c *Client) {
		switch {
		case rt == nil:
			c.fail(errors.New("WithTransport: the round tripper is nil"))
		case c.hcFrom != "":
			c.fail(fmt.Errorf("WithTransport and %s both given: set the transport on the http.Client", c.hcFrom))
		default:
			c.hc, c.hcFrom = &http.Client{Transport: rt}, "WithTransport"
		}
	}
}

// WithClientCertificate makes the client present cert in TLS handshakes,
// for a platform that requires client certificates (mutual TLS). It is
// added to the TLS configuration of the HTTP client in use, which must
// then have an *http.Transport (the SDK's own has).
func WithClientCertificate(cert tls.Certificate) Option {
	return func(c *Client) {
		if len(cert.Certificate) == 0 {
			c.fail(errors.New("WithClientCertificate: the certificate is empty"))
			return
		}
		c.clientCert = &cert
	}
}

// maxIdlePerHost is how many idle connections to the platform
// DefaultTransport keeps.
const maxIdlePerHost = 64

// DefaultTransport returns a new transport as a Client uses when it is
// given no HTTP client: a clone of http.DefaultTransport that keeps up to
// 64 idle connections to a host, where net/http keeps 2. Every call goes
// to one host, and with more than two calls at once net/http would close
// the connections it cannot keep idle and dial new ones, a TCP (and TLS)
// handshake for a good share of the requests of a bulk load. Use it as
// the base of a transport given with WithHTTPClient.
func DefaultTransport() *http.Transport {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = maxIdlePerHost
	tr.MaxIdleConns = max(tr.MaxIdleConns, maxIdlePerHost)
	return tr
}

// withClientCertificate returns a copy of hc whose transport presents
// cert, leaving the caller's client and transport as they are.
func withClientCertificate(hc *http.Client, cert tls.Certificate) (*http.Client, error) {
	tr, ok := hc.Transport.(*http.Transport)
	if hc.Transport == nil {
		tr, ok = DefaultTransport(), true
	}
	if !ok {
		return nil, fmt.Errorf("WithClientCertificate: the HTTP client's transport is a %T, not an *http.Transport", hc.Transport)
	}
	tr = tr.Clone()
	if tr.TLSClientConfig == nil {
		tr.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	// Presented whatever authorities the platform names as acceptable
	// (crypto/tls would otherwise send none), so that a refusal says why.
	tr.TLSClientConfig = tr.TLSClientConfig.Clone()
	tr.TLSClientConfig.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &cert, nil }
	copied := *hc
	copied.Transport = tr
	return &copied, nil
}

// fail records the error of an option; NewClient returns them all.
func (c *Client) fail(err error) { c.err = errors.Join(c.err, err) }

// WithUserAgent sets the User-Agent header of every request.
func WithUserAgent(ua string) Option {
	return func(c *Client) {
		if ua != "" {
			c.userAgent = ua
		}
	}
}

// WithTimeout bounds each attempt of a request (connecting, sending and
// reading the answer); the default is 30 seconds. Retries get a fresh
// timeout; the caller's context bounds the whole call.
func WithTimeout(d time.Duration) Option {
	return func(c *Client) {
		if d <= 0 {
			c.fail(fmt.Errorf("WithTimeout(%v): want a positive duration", d))
			return
		}
		c.timeout = d
	}
}

// WithRetryPolicy sets how often and how long the client retries; see
// RetryPolicy. A zero field keeps its default; a negative one is an error
// of NewClient.
func WithRetryPolicy(p RetryPolicy) Option {
	return func(c *Client) {
		if err := p.check(); err != nil {
			c.fail(fmt.Errorf("WithRetryPolicy: %w", err))
			return
		}
		c.retry = p.withDefaults()
	}
}

// WithServerErrorRetries also retries a 500 answer of a request that is
// safe to repeat (never a create's), under whichever policy
// WithRetryPolicy sets before or after it. Off by default: a 500 may be a
// fault that a retry only repeats; a bulk load turns it on, where a few
// more attempts cost less than a failed record.
func WithServerErrorRetries() Option {
	return func(c *Client) { c.retry500 = true }
}

// WithLogger makes the client log one debug record per HTTP attempt. The
// Authorization header and the token exchange body are never logged.
func WithLogger(l *slog.Logger) Option {
	return func(c *Client) {
		if l != nil {
			c.logger = l
		}
	}
}

// WithTokenCache sets where access tokens are kept between clients (for
// instance across processes). The default keeps them in this client only.
func WithTokenCache(tc TokenCache) Option {
	return func(c *Client) {
		if tc != nil {
			c.tokenCache = tc
		}
	}
}

// Limiter paces requests. Wait is called before every attempt, retries
// included, and returns an error when ctx ends first.
// golang.org/x/time/rate.Limiter satisfies it.
type Limiter interface {
	Wait(ctx context.Context) error
}

// ResponseObserver is implemented by a Limiter that wants to see every
// response, for instance to adapt to the RateLimit-* headers or a 429.
type ResponseObserver interface {
	ObserveResponse(r ObservedResponse)
}

// ObservedResponse is what a ResponseObserver sees of an answer: the
// request's method and path, the status, and the rate the headers state,
// read once by ParseRate.
type ObservedResponse struct {
	Method, Path string
	Status       int
	Rate         Rate
}

// WithLimiter makes every attempt wait for l first. It replaces the pace
// of a WithRateLimit given before it.
func WithLimiter(l Limiter) Option {
	return func(c *Client) {
		if l == nil {
			c.fail(errors.New("WithLimiter: the limiter is nil"))
			return
		}
		c.limiter = l
	}
}

// WithRateLimit paces every attempt, retries included, to perMinute a
// minute with a burst of one: no more than perMinute+1 requests start in
// any 60 seconds, so the client alone stays within a platform's limit of
// that many a minute however the platform counts its window (a burst of
// b lets perMinute+b start in 60 seconds, more than the platform allows).
// For the platform's documented limit,
// WithRateLimit(240). Pages and acknowledgements carry the platform's
// own count in their Rate. It replaces a Limiter of WithLimiter given
// before it; perMinute must be positive.
func WithRateLimit(perMinute float64) Option {
	return func(c *Client) {
		if !(perMinute > 0) || math.IsInf(perMinute, 1) {
			c.fail(fmt.Errorf("WithRateLimit(%v): want a positive number of requests a minute", perMinute))
			return
		}
		c.limiter = rate.NewLimiter(rate.Limit(perMinute/60), 1)
	}
}

// withClock replaces time.Now in tests of token expiry.
func withClock(now func() time.Time) Option {
	return func(c *Client) { c.now = now }
}
