// The options of NewClient, and the pacing interfaces a Limiter may
// implement.

package sdk

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"
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
// before every attempt; ts caches and renews them as it sees fit. A token
// the platform rejects is never sent again. When ts is a
// RejectingTokenSource the client tells it of the rejection and goes on
// with its next token; otherwise a 401 is returned as ErrUnauthorized, as
// with WithAccessToken. It cannot be combined with WithCredentials or
// WithAccessToken.
func WithTokenSource(ts TokenSource) Option {
	return func(c *Client) {
		if ts == nil {
			c.fail(errors.New("WithTokenSource: the token source is nil"))
			return
		}
		c.source = ts
	}
}

// WithHTTPClient sets the HTTP client the SDK sends through; without it a
// Client sends through a client of its own over DefaultTransport. This is
// the one way into the HTTP stack: a transport of your own, a proxy, an
// authority to trust or a client certificate for mutual TLS are set on
// the http.Client given (see ExampleWithHTTPClient). A round tripper that
// wraps an *http.Transport should name it with an Unwrap()
// http.RoundTripper method: a TLS refusal that breaks a connection under
// a write is then explained by a handshake over that transport's
// configuration (see TLSError). Its Timeout, if any,
// bounds each attempt together with WithTimeout. A redirect to another
// origin than the base URL's is never followed; its CheckRedirect, if any,
// decides on the others. The client is copied, not changed.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) {
		switch {
		case hc == nil:
			c.fail(errors.New("WithHTTPClient: the client is nil"))
		case c.hcGiven:
			c.fail(errors.New("WithHTTPClient given twice: give one client"))
		default:
			c.hc, c.hcGiven = hc, true
		}
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

// WithLimiter makes every attempt, retries included, wait for l first.
// For the platform's documented limit of 240 requests a minute,
//
//	sdk.WithLimiter(rate.NewLimiter(rate.Every(time.Minute/240), 1))
//
// with golang.org/x/time/rate: a burst of one lets no more than 241
// requests start in any 60 seconds, so that the client alone stays within
// the limit however the platform counts its window (a burst of b lets
// 240+b start). A Limiter that is also a ResponseObserver sees every
// answer, to adapt its pace to what the platform says of its window.
func WithLimiter(l Limiter) Option {
	return func(c *Client) {
		if l == nil {
			c.fail(errors.New("WithLimiter: the limiter is nil"))
			return
		}
		c.limiter = l
	}
}

// withClock replaces time.Now in tests of token expiry.
func withClock(now func() time.Time) Option {
	return func(c *Client) { c.now = now }
}
