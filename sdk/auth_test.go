package sdk

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestTokenSharedByConcurrentCallers(t *testing.T) {
	f := newFakePlatform(t)
	f.gate = make(chan struct{})
	c := f.client(t)
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.WBSElements.Delete(context.Background(), "A")
			errs <- err
		}()
	}
	close(f.gate)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := f.exchanges.Load(); got != 1 {
		t.Fatalf("100 concurrent calls made %d token exchanges, want 1", got)
	}
	if got := f.requestCount(); got != 100 {
		t.Fatalf("platform saw %d calls, want 100", got)
	}
}

func TestTokenWaiterHonoursOwnContext(t *testing.T) {
	f := newFakePlatform(t)
	f.gate = make(chan struct{})
	defer close(f.gate)
	c := f.client(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { _, err := c.WBSElements.Delete(ctx, "A"); done <- err }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestProactiveRefreshDoesNotBlock(t *testing.T) {
	f := newFakePlatform(t)
	f.expiresIn = "100"
	now := time.Unix(1_700_000_000, 0)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	c := f.client(t, withClock(clock))
	ctx := context.Background()
	if _, err := c.WBSElements.Delete(ctx, "A"); err != nil {
		t.Fatal(err)
	}
	first, _ := c.Token(ctx)
	// 100 s lifetime: the refresh window is 10 s (+ up to 2.5 s jitter);
	// at 93 s the token is getting old but still usable.
	mu.Lock()
	now = now.Add(93 * time.Second)
	mu.Unlock()
	f.gate = make(chan struct{}) // hold the background exchange
	tok, err := c.Token(ctx)
	if err != nil || tok.AccessToken != first.AccessToken {
		t.Fatalf("getting-old token not handed out while refreshing: %v %v", tok, err)
	}
	close(f.gate)
	renewalEnded(c)
	tok, _ = c.Token(ctx)
	if f.exchanges.Load() != 2 || tok.AccessToken == first.AccessToken {
		t.Fatalf("exchanges = %d, token renewed = %v", f.exchanges.Load(), tok.AccessToken != first.AccessToken)
	}
}

func TestExpiredTokenIsReplaced(t *testing.T) {
	f := newFakePlatform(t)
	f.expiresIn = `"60"` // a numeric string
	now := time.Unix(1_700_000_000, 0)
	c := f.client(t, withClock(func() time.Time { return now }))
	ctx := context.Background()
	a, _ := c.Token(ctx)
	if got := a.ExpiresAt.Sub(now); got != 60*time.Second {
		t.Fatalf("expiresIn \"60\" read as %v", got)
	}
	now = now.Add(61 * time.Second)
	b, _ := c.Token(ctx)
	if a.AccessToken == b.AccessToken || f.exchanges.Load() != 2 {
		t.Fatal("expired token was not replaced")
	}
}

// A token past its usable time is renewed, not handed out again because
// the token cache still holds it (issue 23, finding 24).
func TestTokenPastUsableTimeIsRenewed(t *testing.T) {
	f := newFakePlatform(t)
	f.expiresIn = "100"
	now := time.Unix(1_700_000_000, 0)
	c := f.client(t, withClock(func() time.Time { return now }))
	ctx := context.Background()
	first, err := c.Token(ctx)
	if err != nil {
		t.Fatal(err)
	}
	now = now.Add(98 * time.Second) // 2 s before expiry, no call in between
	tok, err := c.Token(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if tok.AccessToken == first.AccessToken || f.exchanges.Load() != 2 {
		t.Fatalf("a token 2 s from expiry was handed out again (%d exchanges)", f.exchanges.Load())
	}
}

func TestUnauthorizedRenewsTokenBoundedTimes(t *testing.T) {
	f := newFakePlatform(t)
	c := f.client(t)
	// Without the bound, a lasting 401 loops exchanges: the deadline ends
	// the loop, and the test fails saying so instead of hanging.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.WBSElements.Delete(ctx, "A"); err != nil {
		t.Fatal(err)
	}
	f.revoke()
	if _, err := c.WBSElements.Delete(ctx, "A"); err != nil {
		t.Fatalf("call after revocation: %v", err)
	}
	if got := f.exchanges.Load(); got != 2 {
		t.Fatalf("exchanges = %d, want 2", got)
	}
	// A platform that rejects every token: maxRenewals renewals, then the 401.
	f.handle = func(w http.ResponseWriter, r *http.Request, n int) bool {
		w.WriteHeader(401)
		return true
	}
	_, err := c.WBSElements.Delete(ctx, "A")
	if ctx.Err() != nil {
		t.Fatalf("a lasting 401 was still being renewed after 10 s (%d exchanges): %v", f.exchanges.Load(), err)
	}
	if !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("err = %v, want ErrUnauthorized", err)
	}
	if got, want := f.exchanges.Load(), int64(2+maxRenewals); got != want {
		t.Fatalf("exchanges = %d, want %d (%d renewals, no loop)", got, want, maxRenewals)
	}
}

func TestBadCredentialIsTypedAndNotRetried(t *testing.T) {
	f := newFakePlatform(t)
	c, _ := NewClient(f.srv.URL, WithCredentials(fakeClientID, "wrong"))
	_, err := c.WBSElements.Delete(context.Background(), "A")
	if !errors.Is(err, ErrInvalidCredentials) {
		t.Fatalf("err = %v, want ErrInvalidCredentials", err)
	}
	if f.exchanges.Load() != 0 || f.requestCount() != 0 {
		t.Fatal("a refused credential was retried or an operation sent")
	}
}

func TestTokenCacheSharesTokens(t *testing.T) {
	f := newFakePlatform(t)
	cache := NewMemoryTokenCache()
	for range 3 {
		c := f.client(t, WithTokenCache(cache))
		if _, err := c.WBSElements.Delete(context.Background(), "A"); err != nil {
			t.Fatal(err)
		}
	}
	if got := f.exchanges.Load(); got != 1 {
		t.Fatalf("3 clients sharing a cache made %d exchanges, want 1", got)
	}
	// A cached token that the platform rejects is not adopted again.
	f.revoke()
	c := f.client(t, WithTokenCache(cache))
	if _, err := c.WBSElements.Delete(context.Background(), "A"); err != nil {
		t.Fatal(err)
	}
	if got := f.exchanges.Load(); got != 2 {
		t.Fatalf("exchanges = %d, want 2", got)
	}
}

func TestParseTokenReply(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	jwt := func(exp int64) string {
		return "eyJhbGciOiJIUzI1NiJ9." + b64(`{"exp":`+itoa(exp)+`}`) + ".sig"
	}
	tests := []struct {
		name string
		body string
		want time.Duration
	}{
		{"number", `{"accessToken":"t","expiresIn":3600}`, time.Hour},
		{"string", `{"accessToken":"t","expiresIn":"3600"}`, time.Hour},
		{"float", `{"accessToken":"t","expiresIn":90.5}`, 90500 * time.Millisecond},
		{"zero falls back", `{"accessToken":"t","expiresIn":0}`, fallbackLifetime},
		{"negative falls back", `{"accessToken":"t","expiresIn":-5}`, fallbackLifetime},
		{"garbage falls back", `{"accessToken":"t","expiresIn":"soon"}`, fallbackLifetime},
		{"missing falls back", `{"accessToken":"t"}`, fallbackLifetime},
		{"a year is capped", `{"accessToken":"t","expiresIn":31536000}`, maxLifetime},
		{"a millisecond is raised to the floor", `{"accessToken":"t","expiresIn":0.001}`, minLifetime},
		{"jwt exp earlier wins", `{"accessToken":"` + jwt(now.Unix()+600) + `","expiresIn":3600}`, 10 * time.Minute},
		{"expiresIn earlier wins", `{"accessToken":"` + jwt(now.Unix()+7200) + `","expiresIn":3600}`, time.Hour},
		{"jwt exp alone", `{"accessToken":"` + jwt(now.Unix()+300) + `"}`, 5 * time.Minute},
		{"jwt exp in a century is capped", `{"accessToken":"` + jwt(now.Unix()+3_000_000_000) + `"}`, maxLifetime},
		{"jwt exp already past is ignored", `{"accessToken":"` + jwt(now.Unix()-10) + `","expiresIn":600}`, 10 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok, err := parseTokenReply([]byte(tt.body), now)
			if err != nil {
				t.Fatal(err)
			}
			if got := tok.ExpiresAt.Sub(now); got != tt.want {
				t.Fatalf("lifetime %v, want %v", got, tt.want)
			}
		})
	}
	for _, body := range []string{`{"expiresIn":3600}`, `not json`, `{"accessToken":5}`} {
		if _, err := parseTokenReply([]byte(body), now); err == nil {
			t.Errorf("%s: no error", body)
		}
	}
}

// A background renewal that fails is logged, and the next is put off
// instead of being tried again on every call; the token in hand is used.
func TestFailedBackgroundRenewalIsLoggedAndBackedOff(t *testing.T) {
	f := newFakePlatform(t)
	f.expiresIn = "100"
	now := time.Unix(1_700_000_000, 0)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	var log strings.Builder
	var logMu sync.Mutex
	c := f.client(t, withClock(clock), WithRetryPolicy(RetryPolicy{MaxAttempts: 2, BaseDelay: 1, MaxDelay: 2}),
		WithLogger(slog.New(slog.NewTextHandler(lockedWriter{&logMu, &log}, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	ctx := context.Background()
	first, _ := c.Token(ctx)
	mu.Lock()
	now = now.Add(93 * time.Second)
	mu.Unlock()
	f.refuseTokens.Store(true)
	for range 20 {
		tok, err := c.Token(ctx)
		if err != nil || tok.AccessToken != first.AccessToken {
			t.Fatalf("the token in hand was not handed out: %v %v", tok, err)
		}
		renewalEnded(c)
	}
	if got := f.tokenRequests.Load(); got != 1+2 {
		t.Fatalf("%d token requests, want the first and one renewal of 2 attempts", got)
	}
	logMu.Lock()
	defer logMu.Unlock()
	if !strings.Contains(log.String(), "token renewal failed") {
		t.Fatalf("no log of the failed renewal:\n%s", log.String())
	}
}

// renewalEnded waits for the end of the renewal of c's token in flight,
// if any, by joining its singleflight group.
func renewalEnded(c *Client) {
	<-c.auth.src.(*reuseTokenSource).group.DoChan(renewKey, func() (any, error) { return nil, nil })
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// A TokenSource supplies the tokens, asked before every attempt; a client
// with credentials is one, so that its exchange serves another client
// (issue 28, finding 8).
func TestTokenSource(t *testing.T) {
	f := newFakePlatform(t)
	exchanging := f.client(t)
	var asked atomic.Int64
	source := TokenSourceFunc(func(ctx context.Context) (Token, error) {
		asked.Add(1)
		return exchanging.Token(ctx)
	})
	for name, ts := range map[string]TokenSource{"client": exchanging, "func": source} {
		c, err := NewClient(f.srv.URL, WithTokenSource(ts))
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			if _, err := c.WBSElements.Delete(context.Background(), "A"); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
	}
	if got := f.exchanges.Load(); got != 1 || asked.Load() != 3 {
		t.Fatalf("%d exchanges and %d calls of the source, want 1 and 3", got, asked.Load())
	}

	// A rejected token is the source's to renew: the 401 is returned.
	f.revoke()
	c, _ := NewClient(f.srv.URL, WithTokenSource(source))
	before := f.requestCount()
	if _, err := c.WBSElements.Delete(context.Background(), "A"); !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("err = %v, want ErrUnauthorized", err)
	}
	if got := f.requestCount() - before; got != 1 {
		t.Fatalf("%d attempts with a rejected token, want 1", got)
	}

	// A source that fails sends nothing, and its error is kept.
	broken := errors.New("vault sealed")
	c, _ = NewClient(f.srv.URL, WithTokenSource(TokenSourceFunc(func(context.Context) (Token, error) { return Token{}, broken })))
	before = f.requestCount()
	if _, err := c.WBSElements.Delete(context.Background(), "A"); !errors.Is(err, broken) || f.requestCount() != before {
		t.Fatalf("err = %v, want the source's error and nothing sent", err)
	}
}
