package sdk

import (
	"net/http"
	"testing"
	"time"
)

// Both spellings of the rate headers are read, the standard one first;
// Reset as seconds from now or as a Unix time, Retry-After as seconds or
// an HTTP date.
func TestParseRateSpellings(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name      string
		h         http.Header
		limit     int
		remaining int
		reset     time.Duration
		wait      time.Duration
	}{
		{"RateLimit", http.Header{"Ratelimit-Limit": {"240"}, "Ratelimit-Remaining": {"12"}, "Ratelimit-Reset": {"30"}}, 240, 12, 30 * time.Second, 0},
		{"X-RateLimit", http.Header{"X-Ratelimit-Limit": {"240"}, "X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {"20"}}, 240, 0, 20 * time.Second, 20 * time.Second},
		{"X-RateLimit, Reset a Unix time", http.Header{"X-Ratelimit-Remaining": {"5"}, "X-Ratelimit-Reset": {itoa(now.Add(45 * time.Second).Unix())}}, -1, 5, 45 * time.Second, 0},
		{"both: the standard one wins", http.Header{"Ratelimit-Remaining": {"7"}, "X-Ratelimit-Remaining": {"0"}}, -1, 7, 0, 0},
		{"Retry-After as a date", http.Header{"Retry-After": {now.Add(90 * time.Second).Format(http.TimeFormat)}}, -1, -1, 0, 90 * time.Second},
		{"none", http.Header{}, -1, -1, 0, 0},
	} {
		r := ParseRate(tt.h, now)
		if r.Limit != tt.limit || r.Remaining != tt.remaining || r.UntilReset(now) != tt.reset || r.Wait(now) != tt.wait {
			t.Errorf("%s: %+v: limit %d remaining %d reset %v wait %v", tt.name, r, r.Limit, r.Remaining, r.UntilReset(now), r.Wait(now))
		}
	}
}
