package sdk_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wbsctl/wbsctl/sdk"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
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
	c, err := sdk.NewClient(srv.URL, sdk.WithCredentials(srv.ClientID, srv.ClientSecret), sdk.WithRateLimit(300))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 30)
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
	c, err := sdk.NewClient(srv.URL, sdk.WithAccessToken(tok), sdk.WithRateLimit(6))
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
		{"nil limiter", []sdk.Option{sdk.WithCredentials("id", "secret"), sdk.WithRateLimit(6), sdk.WithLimiter(nil)}, "WithLimiter"},
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
