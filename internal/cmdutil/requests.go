package cmdutil

import (
	"net/http"
	"sync/atomic"

	"github.com/wbsctl/wbsctl/sdk"
)

// RequestCounts are the HTTP requests a process sent, counted by the
// transport as they go out, and their answers by kind.
type RequestCounts struct {
	// Sent counts every attempt that went out, retries included,
	// whether or not an answer came.
	Sent int64
	// Reads, Writes and Tokens count the answers: to GET and HEAD, to
	// the other methods, and to token exchanges.
	Reads, Writes, Tokens int64
	// Throttled counts the 429 answers.
	Throttled int64
}

// requestCounter is the shared count of a Factory's clients.
type requestCounter struct {
	sent, reads, writes, tokens, throttled atomic.Int64
}

func (c *requestCounter) counts() RequestCounts {
	return RequestCounts{Sent: c.sent.Load(), Reads: c.reads.Load(), Writes: c.writes.Load(),
		Tokens: c.tokens.Load(), Throttled: c.throttled.Load()}
}

// countingTransport counts the requests sent through base. tokenPath is
// the path of the platform's token endpoint.
type countingTransport struct {
	base      http.RoundTripper
	count     *requestCounter
	tokenPath string
}

func (t countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	t.count.sent.Add(1)
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		return resp, err
	}
	switch {
	case r.Method == http.MethodPost && r.URL.Path == t.tokenPath:
		t.count.tokens.Add(1)
	case r.Method == http.MethodGet || r.Method == http.MethodHead:
		t.count.reads.Add(1)
	default:
		t.count.writes.Add(1)
	}
	if resp.StatusCode == http.StatusTooManyRequests {
		t.count.throttled.Add(1)
	}
	return resp, nil
}

// Unwrap is the transport below, for the SDK's explanation of a TLS
// refusal.
func (t countingTransport) Unwrap() http.RoundTripper { return t.base }

// CloseIdleConnections closes the idle connections of the transport below.
func (t countingTransport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// tokenPath is the token endpoint's path under the base URL's, as the
// SDK sends it.
func tokenPath(basePath string) string { return sdk.TokenPath(basePath) }
