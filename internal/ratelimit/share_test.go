package ratelimit

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/wbsctl/wbsctl/sdk"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// share runs k processes on one key against a reference server limited
// to limit a minute in the given window, on a clock of the test's, for the
// given time. Each process is paced by a Limiter of its own at limit a
// minute (as several CI jobs each told --rate) and has 4 workers, whose
// requests take latency to be answered: a process learns what the
// platform says of the window only from the answers, after others have
// sent theirs. It returns the share of the limit's rate the processes got
// done together and the fraction of their requests answered 429.
func share(t *testing.T, k, limit int, window wbstest.RateWindow, span time.Duration) (got, throttled float64) {
	t.Helper()
	const workers, latency = 4, 40 * time.Millisecond
	now := time.Unix(1_700_000_000, 0)
	srv := wbstest.New(wbstest.WithRateLimit(limit), wbstest.WithRateWindow(window), wbstest.WithClock(func() time.Time { return now }))
	tr := srv.Transport()
	token := exchange(t, tr, srv)
	// An event is a worker ready to ask its limiter for a turn (resp nil),
	// or an answer arriving (resp set).
	type event struct {
		at   time.Time
		l    *Limiter
		resp *http.Response
	}
	var events []event
	for i := range k {
		l := New(float64(limit))
		l.now = func() time.Time { return now }
		// The processes start within a second of each other.
		start := now.Add(time.Duration(i) * time.Second / time.Duration(k))
		for range workers {
			events = append(events, event{at: start, l: l})
		}
	}
	end := now.Add(span)
	var ok, refused int
	for len(events) > 0 {
		first := 0
		for i, e := range events {
			if e.at.Before(events[first].at) {
				first = i
			}
		}
		e := events[first]
		events = append(events[:first], events[first+1:]...)
		if e.at.After(end) {
			continue
		}
		if e.resp != nil {
			now = e.at
			if e.resp.StatusCode == http.StatusTooManyRequests {
				refused++
			} else {
				ok++
			}
			e.l.ObserveResponse(sdk.ObservedResponse{Method: http.MethodGet, Path: "/v1/wbs-elements", Status: e.resp.StatusCode, Rate: sdk.ParseRate(e.resp.Header, now)})
			events = append(events, event{at: now, l: e.l})
			continue
		}
		at := e.l.turn(e.at)
		if at.After(end) {
			continue
		}
		// The request reaches the platform half the latency later, and
		// its answer comes back after the other half.
		now = at.Add(latency / 2)
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/v1/wbs-elements?pageSize=1", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		events = append(events, event{at: now.Add(latency / 2), l: e.l, resp: resp})
	}
	return float64(ok) / (float64(limit) * span.Minutes()), float64(refused) / float64(ok+refused)
}

func exchange(t *testing.T, tr http.RoundTripper, srv *wbstest.Server) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/auth/tokens",
		strings.NewReader(fmt.Sprintf(`{"clientId":%q,"clientSecret":%q}`, srv.ClientID, srv.ClientSecret)))
	req.Header.Set("Content-Type", "application/json")
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	_, rest, _ := strings.Cut(string(b), `"accessToken":"`)
	tok, _, _ := strings.Cut(rest, `"`)
	return tok
}

// Several processes on one key, each paced at the key's whole limit, share
// the platform's window: together they get at least 0.95 of its rate done
// and at most 1 % of their requests refused, whichever kind of window the
// platform counts in. (A sliding window starts full, so ten minutes of it
// hold 1.1 of the rate.)
func TestProcessesShareOneKey(t *testing.T) {
	for _, window := range []wbstest.RateWindow{wbstest.FixedWindow, wbstest.SlidingWindow} {
		for _, k := range []int{1, 3, 6} {
			got, throttled := share(t, k, 600, window, 10*time.Minute)
			t.Logf("window %d, %d processes: %.2f of the limit's rate, %.1f %% refused", window, k, got, 100*throttled)
			if got < 0.95 || throttled > 0.01 {
				t.Errorf("window %d, %d processes: %.2f of the limit's rate (want 0.95 or more), %.1f %% refused (want 1 %% or less)", window, k, got, 100*throttled)
			}
		}
	}
}
