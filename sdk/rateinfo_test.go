package sdk

import (
	"testing"

	"golang.org/x/time/rate"
)

// WithRateLimit paces at the rate given with a burst of one, and refuses
// a rate that is not a positive number.
func TestWithRateLimit(t *testing.T) {
	c, err := NewClient("https://platform.example", WithAccessToken("t"), WithRateLimit(240))
	if err != nil {
		t.Fatal(err)
	}
	l, ok := c.limiter.(*rate.Limiter)
	if !ok || l.Limit() != 4 || l.Burst() != 1 {
		t.Fatalf("limiter %T %+v, want 4 a second with a burst of 1", c.limiter, c.limiter)
	}
	for _, bad := range []float64{0, -1} {
		if _, err := NewClient("https://platform.example", WithAccessToken("t"), WithRateLimit(bad)); err == nil {
			t.Errorf("WithRateLimit(%v) accepted", bad)
		}
	}
}
