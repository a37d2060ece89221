package sdk

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// hangGuard bounds a test's calls: a call still running when it ends is a
// hang, whatever the SDK's own timeouts say.
func hangGuard(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func failOnHang(t *testing.T, ctx context.Context, err error) {
	t.Helper()
	if ctx.Err() != nil {
		t.Fatalf("the call outlived the hang guard: %v", err)
	}
}

// Whatever expiresIn the token exchange answers with, the token is used for
// a positive lifetime of at most maxLifetime, shared by the calls made
// within it, and exchanged again only once it has run out.
func TestHostileTokenLifetimes(t *testing.T) {
	tests := []struct {
		name      string
		expiresIn string // JSON text; empty leaves the member out
		want      time.Duration
	}{
		{"zero", "0", fallbackLifetime},
		{"negative", "-3600", fallbackLifetime},
		{"numeric string", `"3600"`, time.Hour},
		{"text", `"abc"`, fallbackLifetime},
		{"missing", "", fallbackLifetime},
		{"null", "null", fallbackLifetime},
		{"boolean", "true", fallbackLifetime},
		{"object", "{}", fallbackLifetime},
		{"infinity as text", `"Inf"`, fallbackLifetime},
		{"a year", "31536000", maxLifetime},
		{"beyond a Duration", "1e10", maxLifetime},
		{"largest int64", "9223372036854775807", maxLifetime},
		{"largest float", "1.7976931348623157e308", maxLifetime},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakePlatform(t)
			f.expiresIn = tt.expiresIn
			start := time.Unix(1_700_000_000, 0)
			var mu sync.Mutex
			now := start
			clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
			advance := func(to time.Time) { mu.Lock(); defer mu.Unlock(); now = to }
			c := f.client(t, withClock(clock))
			ctx := hangGuard(t)
			// Ten calls a second apart: well inside even the fallback
			// lifetime's renewal window.
			for i := range 10 {
				if _, err := c.WBSElements.Delete(ctx, "A"); err != nil {
					t.Fatalf("call %d: %v", i, err)
				}
				advance(start.Add(time.Duration(i+1) * time.Second))
			}
			if got := f.exchanges.Load(); got != 1 {
				t.Fatalf("10 calls made %d token exchanges, want 1", got)
			}
			tok, err := c.Token(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got := tok.ExpiresAt.Sub(start); got != tt.want {
				t.Fatalf("token lifetime %v, want %v", got, tt.want)
			}
			advance(tok.ExpiresAt.Add(time.Second))
			if _, err := c.WBSElements.Delete(ctx, "A"); err != nil {
				t.Fatal(err)
			}
			if got := f.exchanges.Load(); got != 2 {
				t.Fatalf("%d token exchanges after the token ran out, want 2", got)
			}
		})
	}
}

// A Retry-After or RateLimit-Reset of a year or more, in any of its forms,
// is capped at MaxRetryAfter: the call goes on after the capped wait.
func TestHostileRetryAfterIsCapped(t *testing.T) {
	year := 365 * 24 * time.Hour
	tests := []struct {
		name   string
		status int
		header func(now time.Time) http.Header
	}{
		{"seconds", 503, func(time.Time) http.Header { return http.Header{"Retry-After": {"31536000"}} }},
		{"HTTP date", 503, func(now time.Time) http.Header {
			return http.Header{"Retry-After": {now.Add(year).UTC().Format(http.TimeFormat)}}
		}},
		{"HTTP date in year 9999", 429, func(time.Time) http.Header {
			return http.Header{"Retry-After": {"Fri, 31 Dec 9999 23:59:59 GMT"}}
		}},
		{"seconds beyond a Duration", 429, func(time.Time) http.Header { return http.Header{"Retry-After": {"1e300"}} }},
		{"RateLimit-Reset in seconds", 429, func(time.Time) http.Header {
			return http.Header{"Ratelimit-Remaining": {"0"}, "Ratelimit-Reset": {"31536000"}}
		}},
		{"RateLimit-Reset as a Unix time", 429, func(now time.Time) http.Header {
			return http.Header{"Ratelimit-Reset": {itoa(now.Add(year).Unix())}}
		}},
		{"RateLimit-Reset beyond a Duration", 429, func(time.Time) http.Header {
			return http.Header{"Ratelimit-Reset": {"1e300"}}
		}},
	}
	policy := DefaultRetryPolicy()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := time.Now()
			h := tt.header(now)
			if got := ParseRate(h, now).WaitAfter(tt.status, now); got < year-time.Minute {
				t.Fatalf("asked wait read as %v, want a year or more", got)
			}
			apiErr := &APIError{StatusCode: tt.status, Rate: ParseRate(h, now)}
			wait, retry := policy.decide(&request{safe: true}, apiErr, 1, now)
			if !retry || wait != policy.MaxRetryAfter {
				t.Fatalf("decide = %v, %v; want a retry after MaxRetryAfter (%v)", wait, retry, policy.MaxRetryAfter)
			}

			f := newFakePlatform(t)
			f.handle = func(w http.ResponseWriter, r *http.Request, n int) bool {
				if n > 1 {
					return false
				}
				for k, v := range tt.header(time.Now()) {
					w.Header()[k] = v
				}
				w.WriteHeader(tt.status)
				return true
			}
			ctx := hangGuard(t)
			_, err := f.client(t).WBSElements.Delete(ctx, "A") // MaxRetryAfter of 2 ns
			failOnHang(t, ctx, err)
			if err != nil {
				t.Fatalf("err = %v, want the capped wait and a successful retry", err)
			}
			if got := f.requestCount(); got != 2 {
				t.Fatalf("%d attempts, want 2", got)
			}
		})
	}
}

// hostileCall is one operation of the SDK, run against a hostile server.
type hostileCall struct {
	name string
	// kind is what the operation reads: "list", "ack" or "flow".
	kind string
	// unsafe marks a call that must never be sent twice.
	unsafe bool
	do     func(ctx context.Context, c *Client) error
}

var hostileCalls = []hostileCall{
	{"List", "list", false, func(ctx context.Context, c *Client) error {
		_, err := c.WBSElements.List(ctx, nil)
		return err
	}},
	{"All", "list", false, func(ctx context.Context, c *Client) error {
		for _, err := range c.WBSElements.All(ctx, nil) {
			if err != nil {
				return err
			}
		}
		return nil
	}},
	{"Create", "ack", true, func(ctx context.Context, c *Client) error {
		_, err := c.WBSElements.Create(ctx, &CreateWBSElementRequest{Code: "A"})
		return err
	}},
	{"Update", "ack", false, func(ctx context.Context, c *Client) error {
		_, err := c.WBSElements.Update(ctx, "A", &UpdateWBSElementRequest{IsActive: Set(true)})
		return err
	}},
	{"Delete", "ack", false, func(ctx context.Context, c *Client) error {
		_, err := c.WBSElements.Delete(ctx, "A")
		return err
	}},
	{"Execute", "flow", true, func(ctx context.Context, c *Client) error {
		_, err := c.Flows.Execute(ctx, "flow1", nil)
		return err
	}},
}

// runFailing runs call, which must fail after want requests, within the
// hang guard, and with ErrOutcomeUnknown exactly when outcomeUnknown.
func runFailing(t *testing.T, call hostileCall, c *Client, n *atomic.Int64, want int64, outcomeUnknown bool) error {
	t.Helper()
	ctx := hangGuard(t)
	err := call.do(ctx, c)
	failOnHang(t, ctx, err)
	if err == nil {
		t.Fatal("the hostile answer was taken for a success")
	}
	if got := n.Load(); got != want {
		t.Fatalf("%d requests, want %d (err %v)", got, want, err)
	}
	if got := errors.Is(err, ErrOutcomeUnknown); got != outcomeUnknown {
		t.Fatalf("ErrOutcomeUnknown = %v for %v, want %v", got, err, outcomeUnknown)
	}
	return err
}

// A 2xx answer whose body is not the operation's answer is a
// *BadResponseError naming what is wrong, sent once and never retried; for
// a create or a flow execution it is ErrOutcomeUnknown.
func TestHostileUnreadableAnswers(t *testing.T) {
	tests := []struct {
		name        string
		contentType string
		body        string
		reason      string
		// fineFor lists the kinds of call that may take the body as an
		// answer.
		fineFor string
	}{
		{"empty", "application/json", "", "the body is empty", "flow"},
		{"HTML page", "text/html", "<!DOCTYPE html><html><body>Please sign in</body></html>", "HTML or XML", ""},
		{"HTML labelled JSON", "application/json", "\n  <html><body>Bad gateway</body></html>", "HTML or XML", ""},
		{"null", "application/json", "null", "not an object", "flow"},
		{"array", "application/json", `[{"wbsElementCode":"A"}]`, "not an object", "flow"},
		{"text", "text/plain", "OK", "the body is not JSON", ""},
		{"cut list", "application/json", `{"data":[{"wbsElementCode":"A","isAc`, "cut short", ""},
		{"cut acknowledgement", "application/json", `{"correlationId":"c-`, "cut short", ""},
		{"object without data", "application/json", `{"correlationId":"c-1"}`, "no data member", "ack flow"},
		{"data not a list", "application/json", `{"data":{"wbsElementCode":"A"}}`, "data is not a list", "ack flow"},
		{"data null", "application/json", `{"data":null,"hits":null,"next":null}`, "", "list ack flow"},
		{"correlationId of another type", "application/json", `{"correlationId":5}`, "no data member", "ack flow"},
	}
	for _, tt := range tests {
		for _, call := range hostileCalls {
			t.Run(tt.name+"/"+call.name, func(t *testing.T) {
				c, n := listServer(t, func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", tt.contentType)
					fmt.Fprint(w, tt.body)
				}, WithRetryPolicy(RetryPolicy{MaxAttempts: 3, BaseDelay: 1, MaxDelay: 2}))
				if strings.Contains(tt.fineFor, call.kind) {
					if err := call.do(hangGuard(t), c); err != nil {
						t.Fatalf("err = %v, want the body taken as an answer", err)
					}
					return
				}
				err := runFailing(t, call, c, n, 1, call.unsafe)
				var bad *BadResponseError
				if !errors.As(err, &bad) || !errors.Is(err, ErrBadResponse) {
					t.Fatalf("err = %v, want a *BadResponseError", err)
				}
				if !strings.Contains(bad.Reason, tt.reason) || bad.StatusCode != 200 || bad.ContentType != tt.contentType {
					t.Fatalf("%+v, want the reason %q, status 200 and the content type", bad, tt.reason)
				}
			})
		}
	}
}

// An error status with an HTML page is an *APIError carrying the page's
// text; a create that got a 5xx page is ErrOutcomeUnknown, sent once.
func TestHostileHTMLErrorPages(t *testing.T) {
	for _, status := range []int{400, 404, 500, 502} {
		for _, call := range hostileCalls {
			t.Run(fmt.Sprint(status, "/", call.name), func(t *testing.T) {
				c, n := listServer(t, func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "text/html")
					w.WriteHeader(status)
					fmt.Fprintf(w, "<html><head><title>%d</title></head><body><h1>nginx says no</h1></body></html>", status)
				}, WithRetryPolicy(RetryPolicy{MaxAttempts: 3, BaseDelay: 1, MaxDelay: 2}))
				wantRequests := int64(1)
				if status == 502 && !call.unsafe {
					wantRequests = 3
				}
				err := runFailing(t, call, c, n, wantRequests, call.unsafe && status >= 500)
				var apiErr *APIError
				if !errors.As(err, &apiErr) || apiErr.StatusCode != status || !strings.Contains(apiErr.Body, "nginx says no") {
					t.Fatalf("err = %v, want an *APIError with status %d and the page's text", err, status)
				}
			})
		}
	}
}

// A token exchange answered with a body that holds no token is a
// *BadResponseError, not retried, and no operation is sent; an HTML error
// page there is an *APIError, ErrInvalidCredentials only for 400, 401 and
// 403.
func TestHostileTokenAnswers(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		// exchanges is how many token requests one call makes.
		exchanges int64
		want      error
	}{
		{"empty", 200, "", 1, ErrBadResponse},
		{"HTML", 200, "<html><body>Welcome</body></html>", 1, ErrBadResponse},
		{"null", 200, "null", 1, ErrBadResponse},
		{"empty token", 200, `{"accessToken":"","expiresIn":3600}`, 1, ErrBadResponse},
		{"token of another type", 200, `{"accessToken":5,"expiresIn":3600}`, 1, ErrBadResponse},
		{"cut", 200, `{"accessToken":"eyJhbGciOiJIUzI1NiJ9.ey`, 1, ErrBadResponse},
		{"HTML 502", 502, "<html><body>Bad Gateway</body></html>", 3, nil},
		{"HTML 401", 401, "<html><body>Unauthorized</body></html>", 1, ErrInvalidCredentials},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var operations int64
			var mu sync.Mutex
			c, n := credentialServer(t, func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/v1/auth/tokens" {
					mu.Lock()
					operations++
					mu.Unlock()
					return
				}
				w.WriteHeader(tt.status)
				fmt.Fprint(w, tt.body)
			}, WithRetryPolicy(RetryPolicy{MaxAttempts: 3, BaseDelay: 1, MaxDelay: 2}))
			ctx := hangGuard(t)
			_, err := c.WBSElements.Delete(ctx, "A")
			failOnHang(t, ctx, err)
			var apiErr *APIError
			switch {
			case tt.want != nil && !errors.Is(err, tt.want):
				t.Fatalf("err = %v, want %v", err, tt.want)
			case tt.want == nil && (!errors.As(err, &apiErr) || errors.Is(err, ErrInvalidCredentials)):
				t.Fatalf("err = %v, want an *APIError that is not ErrInvalidCredentials", err)
			}
			if strings.Contains(err.Error(), fakeSecret) {
				t.Fatalf("error carries the secret: %v", err)
			}
			mu.Lock()
			defer mu.Unlock()
			if operations != 0 {
				t.Fatalf("%d operations sent without a token", operations)
			}
			if got := n.Load(); got != tt.exchanges {
				t.Fatalf("%d token requests, want %d", got, tt.exchanges)
			}
		})
	}
}

// hijack takes the connection of an answer over, to break HTTP.
func hijack(t *testing.T, w http.ResponseWriter) (*bufio.ReadWriter, func()) {
	conn, rw, err := w.(http.Hijacker).Hijack()
	if err != nil {
		t.Error(err)
		return nil, func() {}
	}
	return rw, func() { conn.Close() }
}

// An answer cut off by a closed connection is an error: retried where the
// request is safe to repeat, ErrOutcomeUnknown and sent once for a create
// or a flow execution.
func TestHostileTruncatedAnswers(t *testing.T) {
	tests := map[string]func(rw *bufio.ReadWriter){
		"shorter than its Content-Length": func(rw *bufio.ReadWriter) {
			fmt.Fprint(rw, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n")
			fmt.Fprint(rw, `{"data":[{"wbsElementCode":"A","isActive":true}],"correlationId":"c-`)
		},
		"chunked and never finished": func(rw *bufio.ReadWriter) {
			fmt.Fprint(rw, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
			fmt.Fprint(rw, "10\r\n{\"data\":[{\"wbsEl\r\n")
		},
		"headers cut": func(rw *bufio.ReadWriter) {
			fmt.Fprint(rw, "HTTP/1.1 200 OK\r\nContent-Ty")
		},
		"closed without an answer": func(*bufio.ReadWriter) {},
	}
	for name, answer := range tests {
		for _, call := range hostileCalls {
			t.Run(name+"/"+call.name, func(t *testing.T) {
				c, n := listServer(t, func(w http.ResponseWriter, r *http.Request) {
					rw, closeConn := hijack(t, w)
					defer closeConn()
					if rw != nil {
						answer(rw)
						rw.Flush()
					}
				}, WithRetryPolicy(RetryPolicy{MaxAttempts: 3, BaseDelay: 1, MaxDelay: 2}))
				wantRequests := int64(3)
				if call.unsafe {
					wantRequests = 1
				}
				runFailing(t, call, c, n, wantRequests, call.unsafe)
			})
		}
	}
}

// A token exchange whose answer never ends is cut off by the per-attempt
// timeout like any call: the operation waiting on it fails, unsent, and
// the error names the timeout.
func TestHostileEndlessTokenAnswer(t *testing.T) {
	var operations atomic.Int64
	c, n := credentialServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/auth/tokens" {
			operations.Add(1)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"accessToken":"`)
		for r.Context().Err() == nil {
			if _, err := fmt.Fprint(w, "x"); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Millisecond):
			}
		}
	}, WithTimeout(200*time.Millisecond),
		WithRetryPolicy(RetryPolicy{MaxAttempts: 2, BaseDelay: 1, MaxDelay: 2}))
	ctx := hangGuard(t)
	_, err := c.WBSElements.Update(ctx, "A", &UpdateWBSElementRequest{IsActive: Set(true)})
	failOnHang(t, ctx, err)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "per-attempt timeout") {
		t.Fatalf("err = %v, want the per-attempt timeout named", err)
	}
	if operations.Load() != 0 {
		t.Fatalf("%d operations sent without a token", operations.Load())
	}
	if got := n.Load(); got != 2 {
		t.Fatalf("%d token requests, want 2 (one retry)", got)
	}
}

// An answer that never ends, trickling or streaming at full speed, ends
// the call with an error: by the per-attempt timeout, or by the bound on
// the size of a body read, which is not retried. A create is sent once.
func TestHostileEndlessAnswers(t *testing.T) {
	tests := map[string]struct {
		answer func(w http.ResponseWriter, r *http.Request)
		// bySize: the size bound ends it, without retries.
		bySize bool
	}{
		"trickling": {answer: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"data":[`)
			tick := time.NewTicker(5 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-r.Context().Done():
					return
				case <-tick.C:
					if _, err := fmt.Fprint(w, " "); err != nil {
						return
					}
					w.(http.Flusher).Flush()
				}
			}
		}},
		"an endless JSON array": {bySize: true, answer: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"correlationId":"c-1","data":[`)
			item := []byte(strings.Repeat(`{"wbsElementCode":"A","isActive":true},`, 1000))
			for r.Context().Err() == nil {
				if _, err := w.Write(item); err != nil {
					return
				}
			}
		}},
	}
	for name, tt := range tests {
		for _, call := range hostileCalls {
			t.Run(name+"/"+call.name, func(t *testing.T) {
				t.Parallel()
				// The size bound must end the endless array, not the
				// timeout, so that case gets a long one.
				timeout := 200 * time.Millisecond
				if tt.bySize {
					timeout = 5 * time.Second
				}
				c, n := listServer(t, tt.answer,
					WithTimeout(timeout),
					WithRetryPolicy(RetryPolicy{MaxAttempts: 2, BaseDelay: 1, MaxDelay: 2}))
				wantRequests := int64(2)
				if call.unsafe || tt.bySize {
					wantRequests = 1
				}
				err := runFailing(t, call, c, n, wantRequests, call.unsafe)
				if tt.bySize && !errors.Is(err, ErrBadResponse) {
					t.Fatalf("err = %v, want ErrBadResponse", err)
				}
				if !tt.bySize && !errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("err = %v, want the attempt's deadline", err)
				}
			})
		}
	}
}

// A next that is garbage, of another scheme, or on another path of the
// platform is read for its page number only: the list goes on with page
// numbers and no other resource is read. A next of zero, a negative
// number or blanks ends the list.
func TestHostileNextValues(t *testing.T) {
	var host string // the server's host:port, set below
	tests := []struct {
		name string
		next func() string // the JSON of next on page 1
		want string        // the codes read
	}{
		{"javascript URL", func() string { return `"javascript:alert(1)"` }, "A,B"},
		{"data URL", func() string { return `"data:text/plain,pageNumber=2"` }, "A,B"},
		{"ftp on the same host", func() string { return `"ftp://` + host + `/v1/wbs-elements?pageNumber=2"` }, "A,B"},
		{"https on the same host", func() string { return `"https://` + host + `/v1/wbs-elements?pageNumber=2"` }, "A,B"},
		{"same origin", func() string { return `"http://` + host + `/v1/wbs-elements?pageNumber=2"` }, "A,B"},
		{"the token endpoint", func() string { return `"/v1/auth/tokens?pageNumber=2"` }, "A,B"},
		{"another list", func() string { return `"/v1/wbs-elements/A/business-organizations?pageNumber=2"` }, "A,B"},
		{"a dot segment out of the list", func() string { return `"/v1/wbs-elements/../auth/tokens?pageNumber=2"` }, "A,B"},
		{"with a fragment", func() string { return `"/v1/wbs-elements?pageNumber=2#top"` }, "A,B"},
		{"text", func() string { return `"not a URL at all"` }, "A,B"},
		{"bad escape", func() string { return `"%zz"` }, "A,B"},
		{"bad host", func() string { return `"http://[::1"` }, "A,B"},
		{"control characters", func() string { return `"\u0000\r\n"` }, "A,B"},
		{"number beyond int", func() string { return `"99999999999999999999"` }, "A,B"},
		{"boolean", func() string { return `true` }, "A,B"},
		{"object", func() string { return `{"page":2}` }, "A,B"},
		{"zero", func() string { return `"0"` }, "A,B"},
		{"negative", func() string { return `-3` }, "A,B"},
		{"blanks", func() string { return `"   "` }, "A"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var wrong []string
			c, n := listServer(t, func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/v1/wbs-elements" {
					mu.Lock()
					wrong = append(wrong, r.URL.String())
					mu.Unlock()
					w.WriteHeader(http.StatusInternalServerError)
					return
				}
				switch r.URL.Query().Get("pageNumber") {
				case "", "1":
					fmt.Fprintf(w, `{"data":[{"wbsElementCode":"A","isActive":true}],"next":%s}`, tt.next())
				case "2":
					fmt.Fprint(w, `{"data":[{"wbsElementCode":"B","isActive":true}],"next":null}`)
				default:
					fmt.Fprint(w, `{"data":[],"next":null}`)
				}
			})
			host = strings.TrimPrefix(c.BaseURL(), "http://")
			ctx := hangGuard(t)
			var codes []string
			for el, err := range c.WBSElements.All(ctx, nil) {
				if err != nil {
					t.Fatal(err)
				}
				codes = append(codes, el.Code)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(wrong) > 0 {
				t.Fatalf("requests outside the list: %v", wrong)
			}
			if got := strings.Join(codes, ","); got != tt.want {
				t.Fatalf("codes %s, want %s", got, tt.want)
			}
			if got := n.Load(); got > 3 {
				t.Fatalf("%d requests for two pages", got)
			}
		})
	}
}

// A hits the SDK cannot hold as a count (beyond int32, negative, not a
// number) is ignored, so a short page ends the list; an enormous hits that
// is a count keeps the iteration going only until an empty page.
func TestHostileHits(t *testing.T) {
	tests := []struct {
		hits     string
		requests int64
		codes    string
	}{
		{"9e18", 1, "1"},
		{"9223372036854775807", 1, "1"},
		{"1e308", 1, "1"},
		{"-1", 1, "1"},
		{`"9e18"`, 1, "1"},
		{`"many"`, 1, "1"},
		{"2147483647", 4, "1,2,3"},
	}
	for _, tt := range tests {
		t.Run(tt.hits, func(t *testing.T) {
			c, n := listServer(t, func(w http.ResponseWriter, r *http.Request) {
				// One item a page on pages 1 to 3, then empty pages.
				page := r.URL.Query().Get("pageNumber")
				data := ""
				if page == "" || page == "1" || page == "2" || page == "3" {
					data = fmt.Sprintf(`{"wbsElementCode":"%s","isActive":true}`, cmp.Or(page, "1"))
				}
				fmt.Fprintf(w, `{"data":[%s],"hits":%s}`, data, tt.hits)
			})
			ctx := hangGuard(t)
			page, err := c.WBSElements.List(ctx, &ListOptions{PageSize: 10})
			if err != nil {
				t.Fatal(err)
			}
			if page.Hits != nil && *page.Hits < 0 {
				t.Fatalf("hits read as %d", *page.Hits)
			}
			n.Store(0)
			var codes []string
			for el, err := range c.WBSElements.All(ctx, &ListOptions{PageSize: 10}) {
				if err != nil {
					t.Fatal(err)
				}
				codes = append(codes, el.Code)
			}
			if got := strings.Join(codes, ","); got != tt.codes {
				t.Fatalf("codes %s, want %s", got, tt.codes)
			}
			if got := n.Load(); got != tt.requests {
				t.Fatalf("%d requests, want %d", got, tt.requests)
			}
		})
	}
}

// A redirect to another origin (here the same host on another port) is
// not followed, so the token never reaches it: the redirect is the
// answer, an *APIError. A redirect on the client's own origin is followed.
func TestHostileRedirects(t *testing.T) {
	var leaked atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			leaked.Add(1)
		}
		fmt.Fprint(w, `{"data":[],"correlationId":"c-1"}`)
	}))
	t.Cleanup(other.Close)
	for _, call := range hostileCalls {
		t.Run(call.name, func(t *testing.T) {
			c, _ := listServer(t, func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Query().Get("moved") == "" {
					target := other.URL + r.URL.Path
					if r.Method == "GET" {
						target = r.URL.Path + "?moved=1" // on the same origin
					}
					http.Redirect(w, r, target, http.StatusTemporaryRedirect)
					return
				}
				fmt.Fprint(w, `{"data":[],"correlationId":"c-1"}`)
			})
			ctx := hangGuard(t)
			err := call.do(ctx, c)
			failOnHang(t, ctx, err)
			if call.kind == "list" {
				if err != nil {
					t.Fatalf("a redirect on the same origin: %v", err)
				}
				return
			}
			var apiErr *APIError
			if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusTemporaryRedirect {
				t.Fatalf("err = %v, want the redirect as an *APIError", err)
			}
			if leaked.Load() != 0 {
				t.Fatal("the bearer token followed a redirect to another origin")
			}
		})
	}
}
