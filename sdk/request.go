// The request loop: every call goes through send, which waits for the
// limiter, takes the token, sends each attempt through resty and decides
// retries.

package sdk

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"
)

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
	rate   Rate // read from header when the answer came
}

// A call that meets a 401 tells its token source, which drops the
// rejected token and goes on with another, never with one it has seen
// rejected (see afterRejection). maxRenewals bounds the new tokens one
// call asks for: the rejections that leave the source without a token,
// as a platform that refuses every token does. A call whose token was
// already replaced, by another call's rejection of it or by a renewal (a
// revocation that a slow request met on its way), moves onto the new
// token without asking for one; maxRejections bounds the 401s of one call
// in all, so that even a platform that revokes every token after one use
// ends the call.
const (
	maxRenewals   = 3
	maxRejections = 10
)

// send runs req: it fetches a token, paces, retries as RetryPolicy and the
// request's safety allow, replaces a rejected token (see maxRenewals), and
// turns a non-2xx answer into an *APIError.
func (c *Client) send(ctx context.Context, req *request) (*response, error) {
	if !c.sameOrigin(req.url) {
		// Only the client's own platform ever sees its token.
		return nil, fmt.Errorf("%s: refusing to send credentials to %s", req.op, req.url.Redacted())
	}
	renewals, rejections := 0, 0
	for attempt := 1; ; attempt++ {
		if c.limiter != nil {
			if err := c.wait(ctx); err != nil {
				return nil, fmt.Errorf("%s: %w", req.op, err)
			}
		}
		// The token is taken after the limiter's turn, so that it is
		// valid when the request goes out, however long the turn took.
		var tok Token
		if !req.noAuth {
			var err error
			if tok, err = c.auth.token(ctx); err != nil {
				return nil, fmt.Errorf("%s: %w", req.op, err)
			}
		}
		if ctx.Err() != nil {
			// Nothing of this attempt was sent, so the outcome is known.
			return nil, fmt.Errorf("%s: %w", req.op, context.Cause(ctx))
		}
		resp, err := c.attempt(ctx, req, tok, attempt)
		if err == nil {
			return resp, nil
		}
		if ctx.Err() != nil {
			// The caller gave up during the attempt: say so rather than
			// naming a symptom, and, where the request may have reached
			// the platform, that its outcome is unknown.
			return nil, c.finalError(req, cutShort(ctx, err))
		}
		var apiErr *APIError
		if errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusUnauthorized && !req.noAuth {
			if next := c.auth.reject(tok); next != noOtherToken {
				if next == renewing {
					renewals++
				}
				rejections++
				if renewals <= maxRenewals && rejections <= maxRejections {
					// The platform rejected this token before acting on
					// the request, so resending is safe even for a
					// create.
					attempt--
					continue
				}
			}
		}
		wait, retry := c.retry.decide(req, err, attempt, c.now())
		if !retry {
			return nil, c.finalError(req, err)
		}
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < wait {
			// Waiting would only end in the deadline: say now what the
			// platform answered, rather than later that time ran out.
			return nil, c.finalError(req, &retryPastDeadline{wait: wait, err: err})
		}
		if sleep(ctx, wait) != nil {
			return nil, c.finalError(req, cutShort(ctx, err))
		}
	}
}

// wait waits for the limiter's turn. x/time/rate refuses at once a turn
// that the context's deadline comes before, in its own words ("would
// exceed context deadline"); that is reported as the deadline it is.
func (c *Client) wait(ctx context.Context) error {
	err := c.limiter.Wait(ctx)
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return context.Cause(ctx)
	}
	if _, ok := ctx.Deadline(); ok && !errors.Is(err, context.DeadlineExceeded) && strings.Contains(err.Error(), "deadline") {
		return &limiterPastDeadline{err: err}
	}
	return err
}

// limiterPastDeadline is a limiter's turn that comes after the context's
// deadline. It matches context.DeadlineExceeded.
type limiterPastDeadline struct{ err error }

func (e *limiterPastDeadline) Error() string {
	return "the context's deadline comes before the rate limiter's turn: " + e.err.Error()
}

func (e *limiterPastDeadline) Unwrap() []error { return []error{context.DeadlineExceeded, e.err} }

// cutShort is the error of a call whose context ended while err was its
// latest failure: the context's cause, and err where it says more than
// that (an answer of the platform does; a transport error then only
// echoes the context).
func cutShort(ctx context.Context, err error) error {
	cause := context.Cause(ctx)
	var te *transportError
	if errors.As(err, &te) {
		return cause
	}
	return fmt.Errorf("%w: %w", cause, err)
}

// retryPastDeadline is a retry that the context's deadline leaves no time
// for. It matches context.DeadlineExceeded and the failure that called for
// the retry, such as a 429's *APIError.
type retryPastDeadline struct {
	wait time.Duration
	err  error
}

func (e *retryPastDeadline) Error() string {
	return fmt.Sprintf("the context's deadline comes before the retry due in %v: %v", e.wait.Round(time.Millisecond), e.err)
}

func (e *retryPastDeadline) Unwrap() []error { return []error{context.DeadlineExceeded, e.err} }

// finalError wraps the error that ends a request; for a request that is not
// safe to repeat, any failure that may have reached the platform becomes an
// *OutcomeUnknownError.
func (c *Client) finalError(req *request, err error) error {
	if !req.safe && !req.noAuth && outcomeUnknown(err) {
		return &OutcomeUnknownError{Op: req.op, Code: req.code, Err: err}
	}
	if _, ok := err.(*APIError); ok {
		// It names the request already.
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
		SetDoNotParseResponse(true)
	// resty clones these into the request it sends, so the shared value
	// slices are never written to; the keys are in canonical form already.
	// A caller's own User-Agent, Accept or Content-Type (a RawRequest's)
	// replaces the default: one of each goes out.
	if len(req.header.Values("User-Agent")) == 0 {
		r.Header["User-Agent"] = c.userAgentHeader
	}
	if len(req.header.Values("Accept")) == 0 {
		r.Header["Accept"] = acceptHeader
	}
	if tok.AccessToken != "" {
		r.Header["Authorization"] = []string{"Bearer " + tok.AccessToken}
	}
	for k, vs := range req.header {
		for _, v := range vs {
			r.Header.Add(k, v)
		}
	}
	if req.body != nil {
		contentType := jsonContentType
		if req.contentType != "" {
			contentType = []string{req.contentType}
		}
		if len(req.header.Values("Content-Type")) == 0 {
			r.Header["Content-Type"] = contentType
		}
		// A *bytes.Reader goes to net/http as it is, which then knows
		// its length and how to replay it; resty copies a []byte twice.
		r.SetBody(bytes.NewReader(req.body))
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
		err = c.timedOut(ctx, actx, c.redactErr(err))
		if te := cmp.Or(asTLSError(err), c.handshakeRefusal(ctx, req.url, err)); te != nil {
			err = te
		} else {
			err = &transportError{err: err}
		}
		c.logAttempt(req, attempt, 0, nil, "", start, err)
		return nil, err
	}
	defer hr.Body.Close()
	// A server may echo the token or the secret in the headers that name
	// the answer: they are scrubbed once, here, for every error and log
	// that quotes them.
	for _, k := range correlationHeaders {
		if v := hr.Header.Get(k); v != "" {
			if r := c.redact(v); r != v {
				hr.Header.Set(k, r)
			}
		}
	}
	limit := cmp.Or(req.maxBody, maxSuccessBody)
	if hr.StatusCode >= 300 {
		limit = maxErrorBody
	}
	var body []byte
	var rerr error
	if hr.StatusCode >= 200 && hr.StatusCode < 300 && hr.ContentLength > limit {
		// Refused as announced, before any of it is read.
		c.logAttempt(req, attempt, hr.StatusCode, hr.Header, "", start, nil)
		return nil, badResponse(req, hr.StatusCode, hr.Header, fmt.Errorf("the body is larger than %d bytes (Content-Length %d)", limit, hr.ContentLength))
	}
	body, rerr = readBody(hr, limit+1)
	now := c.now()
	rate := ParseRate(hr.Header, now)
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
		c.logAttempt(req, attempt, hr.StatusCode, hr.Header, "", start, err)
		if err != nil {
			return nil, err
		}
		return &response{status: hr.StatusCode, header: hr.Header, body: body, rate: rate}, nil
	default:
		apiErr := newAPIError(req.method, req.url.Path, hr.StatusCode, hr.Header, body, c.redact)
		apiErr.tokenExchange = req.noAuth
		apiErr.Rate = rate
		c.logAttempt(req, attempt, hr.StatusCode, hr.Header, apiErr.CorrelationID, start, nil)
		return nil, apiErr
	}
}

// logAttempt logs an attempt that started at start at debug level; the
// correlation id is read from header when not given. Nothing is computed
// when debug logging is off.
func (c *Client) logAttempt(req *request, attempt, status int, header http.Header, correlationID string, start time.Time, err error) {
	if !c.logger.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	d := c.now().Sub(start)
	if correlationID == "" && header != nil {
		correlationID = correlationIDFromHeader(header)
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

// readBody reads at most n bytes of hr's body. With a Content-Length the
// body is read into a slice of that size, then to its end, so that the
// connection goes back to the pool.
func readBody(hr *http.Response, n int64) ([]byte, error) {
	if hr.Request != nil && hr.Request.Method == http.MethodHead {
		// Its Content-Length is that of a GET's body, which never comes.
		return nil, nil
	}
	if hr.ContentLength >= 0 && hr.ContentLength < n {
		// Exactly the announced length (net/http never reads past it).
		b := make([]byte, hr.ContentLength)
		k, err := io.ReadFull(hr.Body, b)
		if err != nil {
			return b[:k], err
		}
		var end [1]byte
		_, _ = hr.Body.Read(end[:])
		return b, nil
	}
	return io.ReadAll(io.LimitReader(hr.Body, n))
}

// ownBody copies a body the caller owns: net/http may still be reading a
// request's body after the call returns (an early answer such as a 401),
// when the caller is free to change it.
func ownBody(b []byte) []byte {
	if b == nil {
		return nil
	}
	return bytes.Clone(b)
}

// The values of the headers every request carries.
var (
	acceptHeader    = []string{"application/json, application/problem+json"}
	jsonContentType = []string{"application/json"}
)

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
