package sdk

import (
	"log/slog"
	"math/rand/v2"
	"net/http"
	"reflect"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

// Every option gives the same client in whatever order the options are
// given: none of them undoes or depends on another.
func TestOptionsInAnyOrder(t *testing.T) {
	hc := &http.Client{Transport: DefaultTransport()}
	limiter := rate.NewLimiter(4, 1)
	logger := slog.New(slog.DiscardHandler)
	cache := NewMemoryTokenCache()
	policy := RetryPolicy{MaxAttempts: 7, BaseDelay: time.Millisecond, MaxDelay: time.Second, MaxRetryAfter: time.Minute}
	opts := []Option{
		WithCredentials("integrationhub-1", "secret"),
		WithHTTPClient(hc),
		WithUserAgent("order-test/1"),
		WithTimeout(7 * time.Second),
		WithRetryPolicy(policy),
		WithServerErrorRetries(),
		WithLogger(logger),
		WithTokenCache(cache),
		WithLimiter(limiter),
	}
	type config struct {
		hc                     *http.Client
		userAgent              string
		timeout                time.Duration
		retry                  RetryPolicy
		logger                 *slog.Logger
		limiter                Limiter
		tokenCache             TokenCache
		clientID, clientSecret string
	}
	of := func(order []Option) config {
		c, err := NewClient("https://platform.example", order...)
		if err != nil {
			t.Fatal(err)
		}
		return config{c.hc, c.userAgent, c.timeout, c.retry, c.logger, c.limiter, c.tokenCache, c.clientID, c.clientSecret}
	}
	want := of(opts)
	if !want.retry.retry500 || want.retry.MaxAttempts != 7 || want.limiter != Limiter(limiter) || want.hc != hc {
		t.Fatalf("the options in their order make %+v", want)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		order := append([]Option(nil), opts...)
		r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		if got := of(order); !reflect.DeepEqual(got, want) {
			t.Fatalf("in another order the options make %+v, want %+v", got, want)
		}
	}
}
