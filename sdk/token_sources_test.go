package sdk

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// countingSource hands out tok-1, tok-2, ..., each valid for an hour.
type countingSource struct {
	n   atomic.Int64
	now func() time.Time
}

func (s *countingSource) Token(context.Context) (Token, error) {
	return Token{AccessToken: fmt.Sprintf("tok-%d", s.n.Add(1)), ExpiresAt: s.now().Add(time.Hour)}, nil
}

// The reusing source renews a rejected token once, however many calls
// tell it of the rejection, and a rejection of a token a renewal already
// replaced drops nothing.
func TestReuseRenewsOncePerRejection(t *testing.T) {
	var mu sync.Mutex
	now := time.Unix(1_700_000_000, 0)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	base := &countingSource{now: clock}
	s := &reuseTokenSource{base: base, now: clock, logError: func(context.Context, slog.Level, string, error, ...slog.Attr) {}}
	ctx := context.Background()

	first, err := s.Token(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Five calls rejected with the first token: one renewal.
	for i := range 5 {
		want := replaced
		if i == 0 {
			want = renewing
		}
		if got := s.reject(first); got != want {
			t.Fatalf("rejection %d of one token: %v, want %v", i+1, got, want)
		}
	}
	second, err := s.Token(ctx)
	if err != nil || second.AccessToken == first.AccessToken {
		t.Fatalf("after the rejection: %v, %v", second, err)
	}
	if got := s.reject(first); got != replaced {
		t.Fatalf("the rejected token told again once another is held: %v, want replaced", got)
	}
	if tok, _ := s.Token(ctx); tok.AccessToken != second.AccessToken || base.n.Load() != 2 {
		t.Fatalf("%d tokens made for one rejection, want 2 in all", base.n.Load())
	}

	// 30 s before the second token expires it is renewed in the
	// background; a slow call that then meets its first rejection of the
	// second token moves onto the third at no cost.
	mu.Lock()
	now = now.Add(time.Hour - 30*time.Second)
	mu.Unlock()
	if tok, _ := s.Token(ctx); tok.AccessToken != second.AccessToken {
		t.Fatal("the token in hand was not handed out while it was renewed")
	}
	<-s.group.DoChan(renewKey, func() (any, error) { return nil, nil })
	if got := s.reject(second); got != replaced {
		t.Fatalf("a rejection of a token a renewal replaced: %v, want replaced", got)
	}
	if tok, _ := s.Token(ctx); tok.AccessToken != "tok-3" || base.n.Load() != 3 {
		t.Fatalf("got %s after %d tokens made, want the renewal's tok-3 and no other", tok.AccessToken, base.n.Load())
	}
}

// toldSource is a TokenSource of the user's that is told of rejections:
// it exchanges a token with issue, hands it out until told of its
// rejection, and notes what it was told.
type toldSource struct {
	issue func(context.Context) (Token, error)

	mu   sync.Mutex
	cur  Token
	told []string
}

func (s *toldSource) Token(ctx context.Context) (Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur.AccessToken == "" {
		tok, err := s.issue(ctx)
		if err != nil {
			return Token{}, err
		}
		s.cur = tok
	}
	return s.cur, nil
}

func (s *toldSource) TokenRejected(tok Token) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.told = append(s.told, tok.AccessToken)
	if tok.AccessToken == s.cur.AccessToken {
		s.cur = Token{}
	}
}

// A TokenSource of the user's that is a RejectingTokenSource gets the
// rejection signal the SDK's own sources get: eight calls rejected with
// one token tell it once, and go on with its next token.
func TestCustomTokenSourceIsToldOncePerRejection(t *testing.T) {
	f := newFakePlatform(t)
	exchanging := f.client(t)
	source := &toldSource{issue: exchanging.ExchangeToken}
	c, err := NewClient(f.srv.URL, WithTokenSource(source))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.WBSElements.Delete(ctx, "A"); err != nil {
		t.Fatal(err)
	}
	source.mu.Lock()
	first := source.cur.AccessToken
	source.mu.Unlock()

	// The platform revokes the token and holds the first eight calls
	// until all eight are on their way with it.
	const calls = 8
	f.revoke()
	var arrived atomic.Int64
	all := make(chan struct{})
	f.arrive = func() {
		switch n := arrived.Add(1); {
		case n == calls:
			close(all)
		case n > calls:
			return
		}
		select {
		case <-all:
		case <-ctx.Done():
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, calls)
	for range calls {
		wg.Go(func() {
			_, err := c.WBSElements.Delete(ctx, "A")
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("a call rejected with the revoked token failed: %v", err)
		}
	}
	source.mu.Lock()
	defer source.mu.Unlock()
	if !slices.Equal(source.told, []string{first}) {
		t.Fatalf("the source was told %d times (%.12q), want once, of the revoked token", len(source.told), source.told)
	}
	if got := f.exchanges.Load(); got != 2 {
		t.Fatalf("the source exchanged %d tokens, want 2", got)
	}
}

// TokenPath is the path of the exchange the client sends, whatever the
// base URL's path.
func TestTokenPathIsTheExchangesPath(t *testing.T) {
	var mu sync.Mutex
	var path string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		path = r.URL.Path
		mu.Unlock()
		fmt.Fprint(w, `{"accessToken":"t","expiresIn":60}`)
	}))
	defer srv.Close()
	for _, base := range []string{"", "/", "/api", "/api/", "/a%2Fb/", "/%C3%BC%20x"} {
		c, err := NewClient(srv.URL+base, WithCredentials("id", "secret"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.ExchangeToken(context.Background()); err != nil {
			t.Fatalf("%q: %v", base, err)
		}
		u, _ := url.Parse(srv.URL + base)
		mu.Lock()
		if got := TokenPath(u.Path); got != path {
			t.Errorf("base %q: TokenPath %q, the exchange went to %q", base, got, path)
		}
		mu.Unlock()
	}
}
