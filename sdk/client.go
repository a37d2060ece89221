package sdk

import (
	"bytes"
	"cmp"
	"context"
	"crypto/tls"
	"encoding/json"
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
	timeout   time.Duration
	retry     RetryPolicy
	retry500  bool
	logger    *slog.Logger
	limiter   Limiter
	auth      *tokenSource

	clientID, clientSecret, staticToken string
	tokenCache                          TokenCache
	now                                 func() time.Time
	// err holds the errors of options, hcFrom the option that set hc.
	err        error
	hcFrom     string
	clientCert *tls.Certificate
}

// Option configures a Client in NewClient.
type Option func(*Client)

// WithCredentials makes the client exchange the integration's key and
// secret for access tokens (spec 5.3), cached and renewed as needed.
func WithCredentials(clientID, clientSecret string) Option {
	return func(c *Client) { c.clientID, c.clientSecret = clientID, clientSecret }
}

// WithAccessToken makes the client send a token obtained elsewhere. The
// client cannot renew it: once the platform rejects it, calls fail with
// ErrUnauthorized. WithCredentials takes precedence when both are given.
func WithAccessToken(token string) Option {
	return func(c *Client) { c.staticToken = token }
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
// RetryPolicy.
func WithRetryPolicy(p RetryPolicy) Option {
	return func(c *Client) { c.retry = p.withDefaults() }
}

// WithServerErrorRetries sets RetryPolicy.RetryServerError, whichever
// policy WithRetryPolicy sets before or after it.
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

// WithLimiter makes every attempt wait for l first.
func WithLimiter(l Limiter) Option {
	return func(c *Client) { c.limiter = l }
}

// withClock replaces time.Now in tests of token expiry.
func withClock(now func() time.Time) Option {
	return func(c *Client) { c.now = now }
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
	for _, o := range opts {
		o(c)
	}
	if c.clientCert != nil {
		hc, err := withClientCertificate(c.hc, *c.clientCert)
		if err != nil {
			c.fail(err)
		}
		c.hc = hc
	}
	if c.err != nil {
		return nil, fmt.Errorf("sdk: %w", c.err)
	}
	c.retry.RetryServerError = c.retry.RetryServerError || c.retry500
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
	c.rc = resty.NewWithClient(&hc).
		SetLogger(discardLogger{}).
		SetDisableWarn(true).
		SetRetryCount(0) // retries are ours: see retry.go
	c.auth = newTokenSource(c)
	c.WBSElements = &WBSElementsService{c: c}
	c.Flows = &FlowsService{c: c}
	return c, nil
}

// BaseURL returns the platform's base URL as the client uses it.
func (c *Client) BaseURL() string { return c.baseURL.String() }

// ClientID returns the client id of the credential, or "" with a static
// access token.
func (c *Client) ClientID() string { return c.clientID }

// request describes one call to the platform; send runs it with retries.
type request struct {
	op     string
	method string
	// url is an absolute URL on the client's own origin.
	url  *url.URL
	body []byte
	// safe marks a request the platform may receive twice without harm:
	// it is retried after any transport error or retryable status. A
	// request that is not safe is retried only where it provably never
	// reached the platform.
	safe bool
	// code is the element code, for errors.
	code string
	// noAuth skips the bearer token (the token exchange itself).
	noAuth bool
	// maxBody bounds the 2xx body that is read; zero is maxSuccessBody.
	maxBody int64
	// header and contentType are those of a RawRequest.
	header      http.Header
	contentType string
}

// response is a 2xx answer.
type response struct {
	status int
	header http.Header
	body   []byte
}

// endpoint returns the absolute URL of a path below the base URL; the
// segments are path-escaped.
func (c *Client) endpoint(segments ...string) *url.URL {
	u := *c.baseURL
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

// send runs req: it fetches a token, paces, retries as RetryPolicy and the
// request's safety allow, renews a rejected token once, and turns a non-2xx
// answer into an *APIError.
func (c *Client) send(ctx context.Context, req *request) (*response, error) {
	if !c.sameOrigin(req.url) {
		// Only the client's own platform ever sees its token.
		return nil, fmt.Errorf("%s: refusing to send credentials to %s", req.op, req.url.Redacted())
	}
	renewed := false
	for attempt := 1; ; attempt++ {
		var tok Token
		if !req.noAuth {
			var err error
			if tok, err = c.auth.token(ctx); err != nil {
				return nil, fmt.Errorf("%s: %w", req.op, err)
			}
		}
		if c.limiter != nil {
			if err := c.limiter.Wait(ctx); err != nil {
				return nil, fmt.Errorf("%s: %w", req.op, err)
			}
		}
		resp, err := c.attempt(ctx, req, tok, attempt)
		if err == nil {
			return resp, nil
		}
		if ctx.Err() != nil {
			// The caller gave up; say so rather than naming a symptom.
			return nil, fmt.Errorf("%s: %w", req.op, context.Cause(ctx))
		}
		var apiErr *APIError
		if errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusUnauthorized && !req.noAuth && !renewed && c.auth.renewable() {
			// The platform rejected this token before acting on the
			// request, so resending is safe even for a create.
			renewed = true
			c.auth.invalidate(tok)
			attempt--
			continue
		}
		wait, retry := c.retry.decide(req, err, attempt)
		if !retry {
			return nil, c.finalError(req, err)
		}
		if err := sleep(ctx, wait); err != nil {
			return nil, fmt.Errorf("%s: %w", req.op, err)
		}
	}
}

// finalError wraps the error that ends a request; for a request that is not
// safe to repeat, any failure that may have reached the platform becomes an
// *OutcomeUnknownError.
func (c *Client) finalError(req *request, err error) error {
	if !req.safe && !req.noAuth && outcomeUnknown(err) {
		return &OutcomeUnknownError{Op: req.op, Code: req.code, Err: err}
	}
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		return err
	}
	return fmt.Errorf("%s: %w", req.op, err)
}

// timedOut names the per-attempt timeout in err when that timeout, and not
// the caller's context, ended the attempt.
func (c *Client) timedOut(ctx, actx context.Context, err error) error {
	if ctx.Err() == nil && errors.Is(actx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("no complete answer within %v (the per-attempt timeout): %w", c.timeout, err)
	}
	return err
}

// attempt sends req once.
func (c *Client) attempt(ctx context.Context, req *request, tok Token, attempt int) (*response, error) {
	actx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	r := c.rc.R().
		SetContext(actx).
		SetDoNotParseResponse(true).
		SetHeader("User-Agent", c.userAgent).
		SetHeader("Accept", "application/json, application/problem+json")
	if tok.AccessToken != "" {
		r.SetHeader("Authorization", "Bearer "+tok.AccessToken)
	}
	for k, vs := range req.header {
		for _, v := range vs {
			r.Header.Add(k, v)
		}
	}
	if req.body != nil {
		r.SetHeader("Content-Type", cmp.Or(req.contentType, "application/json")).SetBody(req.body)
	}
	start := c.now()
	rr, err := r.Execute(req.method, req.url.String())
	var hr *http.Response
	if rr != nil {
		hr = rr.RawResponse
	}
	if err != nil || hr == nil {
		if err == nil {
			err = errors.New("no response")
		}
		err = &transportError{err: c.timedOut(ctx, actx, c.redactErr(err))}
		c.logAttempt(req, attempt, 0, "", c.now().Sub(start), err)
		return nil, err
	}
	defer hr.Body.Close()
	limit := cmp.Or(req.maxBody, maxSuccessBody)
	if hr.StatusCode >= 300 {
		limit = maxErrorBody
	}
	body, rerr := readBody(hr, limit+1)
	rate := ParseRate(hr.Header, c.now())
	if c.limiter != nil {
		if o, ok := c.limiter.(ResponseObserver); ok {
			o.ObserveResponse(ObservedResponse{Method: req.method, Path: req.url.Path, Status: hr.StatusCode, Rate: rate})
		}
	}
	switch {
	case hr.StatusCode >= 200 && hr.StatusCode < 300:
		if rerr != nil {
			err = &transportError{err: fmt.Errorf("reading the answer: %w", c.timedOut(ctx, actx, c.redactErr(rerr)))}
		} else if int64(len(body)) > limit {
			err = badResponse(req, hr.StatusCode, hr.Header, fmt.Errorf("the body is larger than %d bytes", limit))
		}
		c.logAttempt(req, attempt, hr.StatusCode, correlationIDFromHeader(hr.Header), c.now().Sub(start), err)
		if err != nil {
			return nil, err
		}
		return &response{status: hr.StatusCode, header: hr.Header, body: body}, nil
	default:
		apiErr := newAPIError(req.method, req.url.Path, hr.StatusCode, hr.Header, body, c.redact)
		apiErr.tokenExchange = req.noAuth
		apiErr.Rate = rate
		apiErr.RetryAfter = rate.Wait(c.now())
		c.logAttempt(req, attempt, hr.StatusCode, apiErr.CorrelationID, c.now().Sub(start), nil)
		return nil, apiErr
	}
}

func (c *Client) logAttempt(req *request, attempt, status int, correlationID string, d time.Duration, err error) {
	if !c.logger.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	attrs := []slog.Attr{
		slog.String("op", req.op),
		slog.String("method", req.method),
		slog.String("path", req.url.Path),
		slog.Int("attempt", attempt),
		slog.Int("status", status),
		slog.Duration("duration", d),
	}
	if correlationID != "" {
		attrs = append(attrs, slog.String("correlation_id", correlationID))
	}
	if err != nil {
		attrs = append(attrs, slog.String("error", err.Error()))
	}
	c.logger.LogAttrs(context.Background(), slog.LevelDebug, "http attempt", attrs...)
}

// readBody reads at most n bytes of hr's body into a buffer sized by the
// Content-Length, where the server sent one, so that a page is read
// without growing and copying. Without one the buffer starts at 32 KiB:
// net/http sends bodies of up to 4 KiB with a length, so a body without is
// a larger one (a list page), which would otherwise grow from 512 bytes.
func readBody(hr *http.Response, n int64) ([]byte, error) {
	size := int64(32 << 10)
	if hr.ContentLength >= 0 {
		// One more byte than announced, so the end of the body is seen
		// without growing the buffer.
		size = hr.ContentLength + 1
	}
	var b bytes.Buffer
	b.Grow(int(min(size, n)))
	_, err := b.ReadFrom(io.LimitReader(hr.Body, n))
	return b.Bytes(), err
}

// badResponse describes a 2xx answer to req whose body is not the
// operation's answer.
func badResponse(req *request, status int, header http.Header, reason error) *BadResponseError {
	return &BadResponseError{
		Method: req.method, Path: req.url.Path, StatusCode: status,
		ContentType: header.Get("Content-Type"), Reason: reason.Error(),
		CorrelationID: correlationIDFromHeader(header),
	}
}

// decodeJSON decodes body, the JSON of a 2xx answer, into v. Its error
// says what is wrong with the body without quoting it, since it may hold a
// token.
func decodeJSON(body []byte, v any) error {
	if err := jsonPrelude(body, false); err != nil {
		return err
	}
	if err := json.Unmarshal(body, v); err != nil {
		return errors.New(jsonErrorText(err))
	}
	return nil
}

// decodeObject is decodeJSON for an answer that must be a JSON object.
func decodeObject(body []byte, v any) error {
	if err := jsonPrelude(body, true); err != nil {
		return err
	}
	return decodeJSON(body, v)
}

// jsonPrelude tells, from its first byte, a body that cannot be the JSON
// (of an object, when object is set) an answer must be: empty, HTML, or
// something else.
func jsonPrelude(body []byte, object bool) error {
	trimmed := bytes.TrimSpace(body)
	switch {
	case len(trimmed) == 0:
		return errors.New("the body is empty")
	case trimmed[0] == '<':
		return errors.New("the body is HTML or XML, not JSON")
	case !strings.ContainsRune(`{["-0123456789tfn`, rune(trimmed[0])):
		return errors.New("the body is not JSON")
	case object && trimmed[0] != '{' && json.Valid(trimmed):
		return errors.New("the body is JSON but not an object")
	}
	return nil
}

// redact removes the client secret and any access token the client holds
// from text, so that an echo of them by a server never reaches an error or
// a log.
func (c *Client) redact(s string) string {
	for _, secret := range c.secrets() {
		if secret != "" {
			s = strings.ReplaceAll(s, secret, "[REDACTED]")
		}
	}
	return s
}

func (c *Client) redactErr(err error) error {
	msg := err.Error()
	if r := c.redact(msg); r != msg {
		return redactedError{msg: r, err: err}
	}
	return err
}

func (c *Client) secrets() []string {
	return append([]string{c.clientSecret, c.staticToken}, c.auth.knownTokens()...)
}

// redactedError keeps the chain of an error for errors.Is while replacing
// its text.
type redactedError struct {
	msg string
	err error
}

func (e redactedError) Error() string { return e.msg }
func (e redactedError) Unwrap() error { return e.err }

// transportError is a failure below HTTP: the request may or may not have
// reached the platform.
type transportError struct{ err error }

func (e *transportError) Error() string { return e.err.Error() }
func (e *transportError) Unwrap() error { return e.err }

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// discardLogger silences resty's own logging: the SDK logs through slog.
type discardLogger struct{}

func (discardLogger) Errorf(string, ...any) {}
func (discardLogger) Warnf(string, ...any)  {}
func (discardLogger) Debugf(string, ...any) {}
