package sdk_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wbsctl/wbsctl/sdk"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
	"golang.org/x/time/rate"
)

// unauthorized counts the 401s srv answered.
func unauthorized(srv *wbstest.Server) int {
	n := 0
	for _, e := range srv.Journal() {
		if e.Status == http.StatusUnauthorized {
			n++
		}
	}
	return n
}

// A request that waits its turn at the rate limiter goes out with a token
// taken after the wait: tokens that expire while requests queue cost no
// 401, and no call fails.
func TestTokenIsTakenAfterTheLimitersTurn(t *testing.T) {
	srv := wbstest.NewServer(wbstest.WithTokenLifetime(2 * time.Second))
	defer srv.Close()
	// 5 requests a second for 10 callers: each waits about 2 s, a token's
	// whole life, for every turn.
	c, err := sdk.NewClient(srv.URL, sdk.WithCredentials(srv.ClientID, srv.ClientSecret), sdk.WithLimiter(rate.NewLimiter(rate.Every(time.Minute/300), 1)))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 30)
	start := time.Now()
	for range 10 {
		wg.Go(func() {
			for range 3 {
				if _, err := c.WBSElements.List(context.Background(), nil); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("a call failed: %v", err)
	}
	if n := unauthorized(srv); n != 0 {
		t.Errorf("%d requests went out with a token that expired while they waited", n)
	}
	// One exchange for each lifetime the run spanned, and one more at
	// most for a renewal begun just before the end.
	expiries := int(time.Since(start)/(2*time.Second)) + 1
	exchanges := srv.Stats().Requests[wbstest.OpToken]
	t.Logf("%d calls in %v: %d exchanges for %d token lifetimes, %d answered 401", 30, time.Since(start).Round(time.Millisecond), exchanges, expiries, unauthorized(srv))
	if exchanges > expiries+1 {
		t.Errorf("%d exchanges for %d token lifetimes", exchanges, expiries)
	}
}

// staleCache is a TokenCache shared with a process that keeps writing the
// first token it was given: Get returns that token whatever was put since.
type staleCache struct {
	mu    sync.Mutex
	first *sdk.Token
}

func (c *staleCache) Get(context.Context, sdk.TokenCacheKey) (sdk.Token, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.first == nil {
		return sdk.Token{}, false, nil
	}
	return *c.first, true, nil
}

func (c *staleCache) Put(_ context.Context, _ sdk.TokenCacheKey, tok sdk.Token) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.first == nil {
		c.first = &tok
	}
	return nil
}

// A token the platform rejected is never adopted again, however many
// were rejected since: a cache that hands back the first token after two
// revocations does not make a call fail with 401.
func TestRejectedTokensAreNeverAdoptedAgain(t *testing.T) {
	srv := wbstest.NewServer()
	defer srv.Close()
	c, err := sdk.NewClient(srv.URL, sdk.WithCredentials(srv.ClientID, srv.ClientSecret), sdk.WithTokenCache(&staleCache{}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i := range 4 {
		if _, err := c.WBSElements.List(ctx, nil); err != nil {
			t.Fatalf("call %d, after %d revocations: %v", i+1, i, err)
		}
		srv.ExpireTokens()
	}
}

// A limiter's turn that comes after the context's deadline fails the call
// at once as the deadline it is.
func TestLimiterPastTheDeadlineIsTheDeadline(t *testing.T) {
	srv := wbstest.NewServer()
	defer srv.Close()
	tok, err := srv.IssueToken(srv.ClientID)
	if err != nil {
		t.Fatal(err)
	}
	c, err := sdk.NewClient(srv.URL, sdk.WithAccessToken(tok), sdk.WithLimiter(rate.NewLimiter(rate.Every(time.Minute/6), 1)))
	if err != nil {
		t.Fatal(err)
	}
	// The first call takes the one turn of the first 10 s.
	if _, err := c.WBSElements.List(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err = c.WBSElements.List(ctx, nil)
	if !errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
		t.Fatalf("got %v (the context ended: %v), want at once an error that matches context.DeadlineExceeded", err, ctx.Err())
	}
}

// NewClient names the option it refuses: a nil option, a nil limiter,
// credentials with an empty part.
func TestNewClientRefusesEmptyOptions(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []sdk.Option
		want string
	}{
		{"nil option", []sdk.Option{sdk.WithCredentials("id", "secret"), nil}, "option 2"},
		{"nil limiter", []sdk.Option{sdk.WithCredentials("id", "secret"), sdk.WithLimiter(rate.NewLimiter(rate.Every(time.Minute/6), 1)), sdk.WithLimiter(nil)}, "WithLimiter"},
		{"empty client id", []sdk.Option{sdk.WithCredentials("", "secret")}, "WithCredentials: the client id is empty"},
		{"empty secret", []sdk.Option{sdk.WithCredentials("id", "")}, "WithCredentials: the client secret is empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := sdk.NewClient("https://platform.example", tc.opts...); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error naming %q", err, tc.want)
			}
		})
	}
}

// A 2xx answer that announces a body over the limit is refused as soon
// as its headers arrive, without a byte of it read or held.
func TestAnnouncedBodyOverTheLimitIsNotRead(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(1<<30))
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-release // the body never comes
	}))
	defer srv.Close()
	defer close(release)
	c, err := sdk.NewClient(srv.URL, sdk.WithAccessToken("t"), sdk.WithTimeout(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.WBSElements.List(context.Background(), nil)
	if !errors.Is(err, sdk.ErrBadResponse) || !strings.Contains(err.Error(), "Content-Length 1073741824") {
		t.Fatalf("got %v, want the body refused by its announced length", err)
	}
}

// Nothing below the SDK's retry loop sends a request again: with
// MaxAttempts 1, a list whose answer is lost on a reused connection, and
// a create that carries an Idempotency-Key but was not marked safe, each
// reach the platform once, and the create is reported with its outcome
// unknown.
func TestNothingIsResentBelowTheRetryLoop(t *testing.T) {
	srv := wbstest.New()
	// Counted as they arrive, before the platform acts on them.
	var lists, creates atomic.Int64
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/v1/wbs-elements":
			lists.Add(1)
		case r.Method == http.MethodPost && r.URL.Path == "/v1/wbs-elements":
			creates.Add(1)
		}
		srv.ServeHTTP(w, r)
	}))
	defer front.Close()
	c, err := sdk.NewClient(front.URL, sdk.WithCredentials(srv.ClientID, srv.ClientSecret),
		sdk.WithRetryPolicy(sdk.RetryPolicy{MaxAttempts: 1}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// A first call leaves a connection to reuse.
	if _, err := c.WBSElements.List(ctx, nil); err != nil {
		t.Fatal(err)
	}
	lists.Store(0)
	srv.AddFaults(wbstest.FaultRule{Operation: wbstest.OpList, Kind: wbstest.FaultDropAfterCommit, Probability: 1})
	if _, err := c.WBSElements.List(ctx, nil); err == nil {
		t.Fatal("a list whose answer was lost succeeded")
	}
	if n := lists.Load(); n != 1 {
		t.Errorf("the list reached the platform %d times, want 1", n)
	}
	srv.ClearFaults()

	if _, err := c.WBSElements.List(ctx, nil); err != nil {
		t.Fatal(err)
	}
	srv.AddFaults(wbstest.FaultRule{Operation: wbstest.OpCreate, Kind: wbstest.FaultDropAfterCommit, Probability: 1})
	_, err = c.Do(ctx, &sdk.RawRequest{Method: http.MethodPost, Path: "/v1/wbs-elements",
		Header: http.Header{"Idempotency-Key": {"k-1"}}, Body: []byte(`{"wbsElementCode":"IK-1"}`)})
	if !errors.Is(err, sdk.ErrOutcomeUnknown) {
		t.Errorf("got %v, want the outcome unknown", err)
	}
	if n := creates.Load(); n != 1 {
		t.Errorf("the create reached the platform %d times, want 1", n)
	}
}

// panicking is a RoundTripper that panics.
type panicking struct{}

func (panicking) RoundTrip(*http.Request) (*http.Response, error) { panic("the transport broke") }

// A panic in the token exchange, which runs apart from its callers,
// reaches the caller that triggered it as an error; the process goes on.
func TestPanicInTheExchangeReachesTheCaller(t *testing.T) {
	c, err := sdk.NewClient("https://platform.example", sdk.WithCredentials("id", "secret"), sdk.WithHTTPClient(&http.Client{Transport: panicking{}}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.WBSElements.List(context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), "panic: the transport broke") {
		t.Fatalf("got %v, want the exchange's panic as an error", err)
	}
}

// A client used as another's TokenSource is told when the platform
// rejects its token, and hands out another: one revocation does not fail
// every call until the token expires.
func TestClientAsTokenSourceHearsOfRejections(t *testing.T) {
	srv := wbstest.NewServer()
	defer srv.Close()
	source, err := sdk.NewClient(srv.URL, sdk.WithCredentials(srv.ClientID, srv.ClientSecret))
	if err != nil {
		t.Fatal(err)
	}
	c, err := sdk.NewClient(srv.URL, sdk.WithTokenSource(source))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := c.WBSElements.List(context.Background(), nil); err != nil {
			t.Fatalf("call %d, after %d revocations: %v", i+1, i, err)
		}
		srv.ExpireTokens()
	}
}

// CloseIdleConnections leaves no connection and no goroutine of the
// client behind, as a goroutine-leak check in a user's test wants.
func TestCloseIdleConnectionsLeavesNothingBehind(t *testing.T) {
	srv := wbstest.NewServer()
	defer srv.Close()
	before := runtime.NumGoroutine()
	c, err := sdk.NewClient(srv.URL, sdk.WithCredentials(srv.ClientID, srv.ClientSecret))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if _, err := c.WBSElements.List(context.Background(), nil); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	c.CloseIdleConnections()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines, %d before the client", runtime.NumGoroutine(), before)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
