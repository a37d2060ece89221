package sdk

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-resty/resty/v2"
)

// Version is the SDK's version, sent in the default User-Agent.
const Version = "0.1.0"

const (
	defaultTimeout   = 30 * time.Second
	defaultUserAgent = "wbsctl-sdk-go/" + Version
	// maxSuccessBody bounds the 2xx body of a page or a flow's answer that
	// is read, so that an endless answer ends; maxSmallBody that of an
	// acknowledgement or a token, which take some bytes.
	maxSuccessBody = 16 << 20
	maxSmallBody   = 1 << 20
)

// Client talks to one platform (one base URL) with one credential. It is
// safe for concurrent use; create it once and share it.
type Client struct {
	// WBSElements holds the operations on WBS elements and their business
	// organizations.
	WBSElements *WBSElementsService
	// Flows holds the integration execution call.
	Flows *FlowsService

	baseURL   *url.URL
	rc        *resty.Client
	hc        *http.Client
	userAgent string
	// userAgentHeader is userAgent as a header's values.
	userAgentHeader []string
	timeout         time.Duration
	retry           RetryPolicy
	retry500        bool
	logger          *slog.Logger
	limiter         Limiter
	// auth is the client's token source; exchange the credential's
	// exchange, for ExchangeToken (nil without WithCredentials).
	auth     *tokens
	exchange *exchangeTokenSource
	// secretForms holds what redact removes.
	secretForms secretForms

	clientID, clientSecret, staticToken string
	source                              TokenSource
	tokenCache                          TokenCache
	now                                 func() time.Time
	// err holds the errors of options; hcGiven says WithHTTPClient set hc.
	err     error
	hcGiven bool
}

// NewClient returns a client for the platform at baseURL, such as
// "https://api.example.com". It fails when baseURL is not an absolute http
// or https URL.
func NewClient(baseURL string, opts ...Option) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("sdk: base URL %q is not an absolute http or https URL", baseURL)
	}
	u.RawQuery, u.Fragment = "", ""
	c := &Client{
		baseURL:    u,
		hc:         &http.Client{Transport: DefaultTransport()},
		userAgent:  defaultUserAgent,
		timeout:    defaultTimeout,
		retry:      DefaultRetryPolicy(),
		logger:     slog.New(slog.DiscardHandler),
		tokenCache: NewMemoryTokenCache(),
		now:        time.Now,
	}
	for i, o := range opts {
		if o == nil {
			c.fail(fmt.Errorf("option %d of NewClient is nil", i+1))
			continue
		}
		o(c)
	}
	var credentials []string
	for _, o := range []struct {
		name  string
		given bool
	}{
		{"WithCredentials", c.clientID != "" || c.clientSecret != ""},
		{"WithAccessToken", c.staticToken != ""},
		{"WithTokenSource", c.source != nil},
	} {
		if o.given {
			credentials = append(credentials, o.name)
		}
	}
	if len(credentials) > 1 {
		c.fail(fmt.Errorf("%s given: give one credential", strings.Join(credentials, " and ")))
	}
	if c.err != nil {
		return nil, fmt.Errorf("sdk: %w", c.err)
	}
	c.retry.retry500 = c.retry500
	c.userAgentHeader = []string{c.userAgent}
	// A redirect follows the rule of next: only the base URL's origin sees
	// the token (net/http would forward it to the same host on another
	// port, to a subdomain, and over plain http). The caller's client is
	// copied, not changed.
	hc := *c.hc
	checkRedirect := hc.CheckRedirect
	hc.CheckRedirect = func(r *http.Request, via []*http.Request) error {
		if !c.sameOrigin(r.URL) {
			// The redirect itself is the answer, an *APIError.
			return http.ErrUseLastResponse
		}
		if checkRedirect != nil {
			return checkRedirect(r, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	hc.Transport = onlyOnce{cmp.Or[http.RoundTripper](hc.Transport, http.DefaultTransport)}
	c.rc = resty.NewWithClient(&hc).
		SetLogger(discardLogger{}).
		SetDisableWarn(true).
		SetRetryCount(0) // retries are ours: see retry.go
	c.auth, c.exchange = c.tokenSources()
	c.WBSElements = &WBSElementsService{c: c, elements: c.endpoint("v1", "wbs-elements")}
	c.Flows = &FlowsService{c: c}
	return c, nil
}

// BaseURL returns the platform's base URL as the client uses it.
func (c *Client) BaseURL() string { return c.baseURL.String() }

// ClientID returns the client id of the credential, or "" with a static
// access token.
func (c *Client) ClientID() string { return c.clientID }

// endpoint returns the absolute URL of a path below the base URL; the
// segments are path-escaped.
func (c *Client) endpoint(segments ...string) *url.URL { return endpointBelow(c.baseURL, segments...) }

// endpointBelow returns the absolute URL of a path below base; the
// segments are path-escaped.
func endpointBelow(base *url.URL, segments ...string) *url.URL {
	u := *base
	var raw strings.Builder
	raw.WriteString(u.EscapedPath())
	for _, s := range segments {
		raw.WriteString("/")
		raw.WriteString(escapeSegment(s))
	}
	p, _ := url.PathUnescape(raw.String())
	u.Path, u.RawPath = p, raw.String()
	return &u
}

// escapeSegment escapes one path segment. The segments . and .. (an
// element code or a flow id may be either) are escaped too: sent as they
// are, they are dot-segments that a client, proxy or server resolves into
// another path, such as DELETE /v1/wbs-elements/.. into DELETE /v1/.
func escapeSegment(s string) string {
	if s == "." || s == ".." {
		return strings.Repeat("%2E", len(s))
	}
	return url.PathEscape(s)
}

// sameOrigin reports whether u may receive the client's bearer token.
func (c *Client) sameOrigin(u *url.URL) bool {
	return strings.EqualFold(u.Scheme, c.baseURL.Scheme) && strings.EqualFold(u.Host, c.baseURL.Host)
}

// CloseIdleConnections closes the connections the client keeps open
// between calls, as http.Client's does: a program or a test that is done
// with the client leaves no connection or goroutine of it behind.
func (c *Client) CloseIdleConnections() { c.rc.GetClient().CloseIdleConnections() }

// onlyOnce sends each request as one that net/http will not send again.
// The transport resends on its own a request it deems replayable (a GET,
// or one with an Idempotency-Key header, whose body it can rewind) when a
// reused connection fails before an answer, and HTTP/2 does after a
// GOAWAY: below the SDK's retry loop, past MaxAttempts and the limiter,
// and for a request the SDK never proved safe. A body that cannot be
// rewound makes no request replayable; an empty one is sent as none.
type onlyOnce struct{ base http.RoundTripper }

func (t onlyOnce) RoundTrip(r *http.Request) (*http.Response, error) {
	// A round tripper must not change the request it is given: the copy
	// differs in its body alone, and shares the rest, which net/http
	// only reads.
	once := *r
	if once.Body == nil || once.Body == http.NoBody {
		switch once.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
			// net/http reads it first, finds it empty, and sends
			// no body.
			once.Body = emptyBody{}
		default:
			if once.Header.Get("Idempotency-Key") != "" || once.Header.Get("X-Idempotency-Key") != "" {
				once.Body = emptyBody{} // sent as an empty chunked body
			}
		}
	}
	once.GetBody = nil
	return t.base.RoundTrip(&once)
}

// CloseIdleConnections closes the idle connections of the transport
// below, for Client.CloseIdleConnections.
func (t onlyOnce) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// emptyBody is an empty body that net/http cannot rewind.
type emptyBody struct{}

func (emptyBody) Read([]byte) (int, error) { return 0, io.EOF }
func (emptyBody) Close() error             { return nil }
