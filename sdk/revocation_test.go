package sdk

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// rejectionWatch is a transport that notes each token the platform
// answered 401 to, when the client saw that answer, and each request
// that carried a token after its rejection had been seen.
type rejectionWatch struct {
	base http.RoundTripper

	mu   sync.Mutex
	seen map[string]time.Time
	// late are the requests sent with a token more than lateAfter
	// after its 401 came back: the client handed out a token it knew
	// to be rejected. A request that took its token before the 401 came
	// back and went out just after is not late.
	late []string
}

// lateAfter is the time between a call taking its token and the request
// leaving, which a busy machine (50 goroutines, the race detector) can
// stretch; a token handed out again after its rejection was seen is sent
// for as long as it is held, far past that.
const lateAfter = 50 * time.Millisecond

func (w *rejectionWatch) RoundTrip(r *http.Request) (*http.Response, error) {
	tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	w.mu.Lock()
	if at, ok := w.seen[tok]; ok && tok != "" && time.Since(at) > lateAfter {
		w.late = append(w.late, tok)
	}
	w.mu.Unlock()
	resp, err := w.base.RoundTrip(r)
	if err == nil && resp.StatusCode == http.StatusUnauthorized && tok != "" {
		w.mu.Lock()
		if _, ok := w.seen[tok]; !ok {
			w.seen[tok] = time.Now()
		}
		w.mu.Unlock()
	}
	return resp, err
}

// A valid credential survives a revocation storm: 50 goroutines share a
// client while the platform revokes every token each 200 ms and answers a
// tenth of the requests 250 ms late. (A call whose own token is rejected
// on four slowed attempts in a row has spent its maxRenewals: with a fifth
// slowed, about one run in thirty met such a call.) No call ends in ErrUnauthorized, the
// goroutines make at most one exchange per revocation together, and no
// token is sent again once its rejection came back.
func TestRevocationStorm(t *testing.T) {
	if testing.Short() {
		t.Skip("a storm of 5 s")
	}
	f := newFakePlatform(t)
	// A slowed request reaches the platform 250 ms after it left: a
	// revocation always comes between, and its token is refused.
	f.arrive = func() {
		if rand.N(10) == 0 {
			time.Sleep(250 * time.Millisecond)
		}
	}
	watch := &rejectionWatch{base: http.DefaultTransport, seen: map[string]time.Time{}}
	c := f.client(t, WithHTTPClient(&http.Client{Transport: watch}))

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var revocations atomic.Int64
	stormDone := make(chan struct{})
	go func() {
		defer close(stormDone)
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				f.revoke()
				revocations.Add(1)
			}
		}
	}()

	var calls, unauthorized atomic.Int64
	var firstErr error
	var errOnce sync.Once
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				// Each call has its own deadline past the storm's, so
				// that the storm's end cuts no call short.
				callCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
				_, err := c.WBSElements.Delete(callCtx, "A")
				cancel()
				calls.Add(1)
				if err != nil {
					if errors.Is(err, ErrUnauthorized) {
						unauthorized.Add(1)
					}
					errOnce.Do(func() { firstErr = err })
				}
			}
		}()
	}
	wg.Wait()
	<-stormDone

	t.Logf("%d calls, %d revocations, %d exchanges, %d tokens rejected", calls.Load(), revocations.Load(), f.exchanges.Load(), len(watch.seen))
	if n := unauthorized.Load(); n > 0 {
		t.Errorf("%d of %d calls ended in ErrUnauthorized, the first: %v", n, calls.Load(), firstErr)
	} else if firstErr != nil {
		t.Errorf("a call failed: %v", firstErr)
	}
	// One exchange to start, then at most one for each revocation.
	if got, most := f.exchanges.Load(), revocations.Load()+1; got > most {
		t.Errorf("%d exchanges for %d revocations, want at most %d", got, revocations.Load(), most)
	}
	if len(watch.late) > 0 {
		t.Errorf("%d requests went out with a token more than %v after its 401 came back: %.40q", len(watch.late), lateAfter, watch.late)
	}
}

// blockingPut is a TokenCache whose first Put waits for release: the
// exchange that made the token has adopted it and not yet handed it out.
type blockingPut struct {
	put     chan Token
	release chan struct{}
	once    sync.Once
}

func (c *blockingPut) Get(context.Context, TokenCacheKey) (Token, bool, error) {
	return Token{}, false, nil
}

func (c *blockingPut) Put(_ context.Context, _ TokenCacheKey, tok Token) error {
	c.once.Do(func() {
		c.put <- tok
		<-c.release
	})
	return nil
}

// A token rejected between its exchange's end and the moment the
// exchange's waiters get it is not handed to them: they get another.
func TestTokenRejectedDuringItsExchangeIsNotHandedOut(t *testing.T) {
	f := newFakePlatform(t)
	cache := &blockingPut{put: make(chan Token), release: make(chan struct{})}
	c := f.client(t, WithTokenCache(cache))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got := make(chan Token, 1)
	go func() {
		tok, err := c.Token(ctx)
		if err != nil {
			t.Error(err)
		}
		got <- tok
	}()
	var first Token
	select {
	case first = <-cache.put:
	case <-ctx.Done():
		t.Fatal("no exchange within 10 s")
	}
	// Another call takes the adopted token and the platform rejects it.
	held, err := c.Token(ctx)
	if err != nil || held.AccessToken != first.AccessToken {
		t.Fatalf("the token in hand is not the exchange's: %v", err)
	}
	c.TokenRejected(held)
	close(cache.release)
	select {
	case tok := <-got:
		if tok.AccessToken == first.AccessToken {
			t.Fatal("the exchange's waiter got the token rejected while it waited")
		}
	case <-ctx.Done():
		t.Fatal("the exchange's waiter had no token within 10 s")
	}
	if n := f.exchanges.Load(); n != 2 {
		t.Fatalf("%d exchanges, want 2", n)
	}
}
