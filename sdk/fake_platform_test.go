package sdk

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// fakePlatform is a small, scripted platform for the SDK's own tests of
// token handling and retries; the full behaviour is tested against wbstest.
type fakePlatform struct {
	t         *testing.T
	srv       *httptest.Server
	exchanges atomic.Int64
	// expiresIn is the JSON sent as expiresIn; empty leaves the member out.
	expiresIn string
	// gate, when set, blocks token exchanges until closed.
	gate chan struct{}
	// refuseTokens answers every token exchange 503; tokenRequests
	// counts them all.
	refuseTokens  atomic.Bool
	tokenRequests atomic.Int64

	mu       sync.Mutex
	valid    map[string]bool
	requests []string // method + path of element calls
	// handle answers element calls; nil answers 200 with an ack.
	handle func(w http.ResponseWriter, r *http.Request, n int) bool
	// arrive, when set, runs before an element call's token is checked:
	// a request slowed there meets the token as it is when it arrives.
	arrive func()
}

const (
	fakeClientID = "integrationhub-flow1"
	fakeSecret   = "s3cr3t-VALUE-never-printed"
)

func newFakePlatform(t *testing.T) *fakePlatform {
	f := &fakePlatform{t: t, expiresIn: "3600", valid: map[string]bool{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakePlatform) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/v1/auth/tokens" {
		f.tokenRequests.Add(1)
		if f.gate != nil {
			<-f.gate
		}
		if f.refuseTokens.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		var creds struct{ ClientID, ClientSecret string }
		_ = json.NewDecoder(r.Body).Decode(&creds)
		if creds.ClientID != fakeClientID || creds.ClientSecret != fakeSecret {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(401)
			fmt.Fprint(w, `{"type":"about:blank","title":"Unauthorized","status":401,"detail":"bad credentials"}`)
			return
		}
		n := f.exchanges.Add(1)
		tok := fmt.Sprintf("tok-%d-%s", n, strings.Repeat("x", 20))
		f.mu.Lock()
		f.valid[tok] = true
		f.mu.Unlock()
		if f.expiresIn == "" {
			fmt.Fprintf(w, `{"accessToken":%q}`, tok)
			return
		}
		fmt.Fprintf(w, `{"accessToken":%q,"expiresIn":%s}`, tok, f.expiresIn)
		return
	}
	if f.arrive != nil {
		f.arrive()
	}
	tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	f.mu.Lock()
	ok := f.valid[tok]
	f.requests = append(f.requests, r.Method+" "+r.URL.Path)
	n := len(f.requests)
	handle := f.handle
	f.mu.Unlock()
	if !ok {
		w.Header().Set("WWW-Authenticate", "Bearer")
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(401)
		fmt.Fprint(w, `{"title":"Unauthorized","status":401}`)
		return
	}
	if handle != nil && handle(w, r, n) {
		return
	}
	fmt.Fprintf(w, `{"correlationId":"c-%d"}`, n)
}

// revoke makes the platform reject every token issued so far.
func (f *fakePlatform) revoke() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.valid = map[string]bool{}
}

func (f *fakePlatform) requestCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.requests)
}

func (f *fakePlatform) client(t *testing.T, opts ...Option) *Client {
	t.Helper()
	opts = append([]Option{
		WithCredentials(fakeClientID, fakeSecret),
		WithRetryPolicy(RetryPolicy{BaseDelay: 1, MaxDelay: 2, MaxRetryAfter: 2}),
	}, opts...)
	c, err := NewClient(f.srv.URL, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func b64(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
func itoa(n int64) string { return strconv.FormatInt(n, 10) }
