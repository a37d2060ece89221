// Package ratelimit paces a command's requests: a fixed rate given by a
// flag such as --rate 240/min, slowed down by what the platform says of
// its own limit.
package ratelimit

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wbsctl/wbsctl/sdk"
	"golang.org/x/time/rate"
)

// Limiter paces the requests of a run: one token bucket shared by all
// workers, slowed down by what the platform says of its own limit. It
// implements sdk.Limiter and sdk.ResponseObserver.
//
// The platform documents 240 requests per minute per key. A fixed rate
// alone is not enough: other processes may use the same key, and the
// platform's window may not line up with ours. So when an answer says that
// no request is left in the window (RateLimit-Remaining: 0), or the
// platform answers 429, every worker pauses until the window resets; and
// when few requests are left for the rest of the window, the rate drops to
// spread them evenly.
type Limiter struct {
	bucket *rate.Limiter
	base   rate.Limit
	now    func() time.Time

	mu         sync.Mutex
	pauseUntil time.Time
	// slowUntil is the end of the window whose rest the bucket's slower
	// rate spreads; zero when the bucket is at the configured rate.
	slowUntil time.Time
	// share estimates the part of the key's requests that are this
	// process's, from how far the platform's RateLimit-Remaining fell
	// between two answers against how many of them were this process's:
	// other processes on the same key draw on the same window.
	share         float64
	lastRemaining int
	lastReset     time.Time
	answersSince  int
}

// New returns a limiter of perMinute requests per minute; zero or less
// means no fixed rate (the platform's headers still pace it).
func New(perMinute float64) *Limiter {
	l := &Limiter{now: time.Now, base: rate.Inf, share: 1}
	if perMinute > 0 {
		l.base = rate.Limit(perMinute / 60)
	}
	// A burst of one keeps any 60-second window within the rate.
	l.bucket = rate.NewLimiter(l.base, 1)
	return l
}

// ParsePerMinute reads a rate flag such as "240/min", "4/s" or "1000/h";
// "0" or "unlimited" is no fixed rate. It returns requests per minute.
func ParsePerMinute(s string) (float64, error) {
	s = strings.TrimSpace(strings.ToLower(s))
	if s == "0" || s == "unlimited" || s == "" {
		return 0, nil
	}
	num, unit, ok := strings.Cut(s, "/")
	if !ok {
		unit = "min"
	}
	n, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("rate %q: want a number of requests per unit, such as 240/min", s)
	}
	switch strings.TrimSpace(unit) {
	case "s", "sec", "second":
		return n * 60, nil
	case "m", "min", "minute":
		return n, nil
	case "h", "hour":
		return n / 60, nil
	}
	return 0, fmt.Errorf("rate %q: unit must be s, min or h", s)
}

// Wait blocks until the next request may start, or ctx ends.
func (l *Limiter) Wait(ctx context.Context) error {
	at := l.turn(l.now())
	for {
		// A pause the platform asked for since the turn was taken
		// holds it back too.
		l.mu.Lock()
		at = laterOf(at, l.pauseUntil)
		l.mu.Unlock()
		d := at.Sub(l.now())
		if d <= 0 {
			return nil
		}
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return context.Cause(ctx)
		}
	}
}

// turn takes the next request's turn at now and returns when it is: after
// any pause, at the bucket's pace. A slower pace that spreads the rest of
// a window ends with that window: a turn it would put past the window's
// end is taken at the end instead, at the configured pace, so that workers
// do not queue into the next window at the old one's pace.
func (l *Limiter) turn(now time.Time) time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	start := laterOf(now, l.pauseUntil)
	if !l.slowUntil.IsZero() && !start.Before(l.slowUntil) {
		l.bucket.SetLimitAt(start, l.base)
		l.slowUntil = time.Time{}
	}
	r := l.bucket.ReserveN(start, 1)
	at := start.Add(r.DelayFrom(start))
	if !l.slowUntil.IsZero() && at.After(l.slowUntil) {
		r.CancelAt(start)
		start, l.slowUntil = l.slowUntil, time.Time{}
		l.bucket.SetLimitAt(start, l.base)
		at = start.Add(l.bucket.ReserveN(start, 1).DelayFrom(start))
	}
	return at
}

func laterOf(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// ObserveResponse adapts the pace to the platform's rate, as the SDK read
// it from the RateLimit-* and Retry-After headers, and to 429 answers.
func (l *Limiter) ObserveResponse(o sdk.ObservedResponse) {
	l.observe(o.Status, o.Rate)
}

func (l *Limiter) observe(status int, r sdk.Rate) {
	now := l.now()
	var pause time.Duration
	switch {
	case status == http.StatusTooManyRequests:
		// The SDK's reading of the answer; a 429 that says nothing of
		// when still pauses a second.
		pause = cmp.Or(r.WaitAfter(status, now), time.Second)
	case r.Exhausted():
		pause = r.WaitAfter(status, now)
	}
	if pause > 0 {
		// The platform's window is a minute: a longer wait asked for is
		// not its rate limit, and a year of Retry-After must not stall a
		// run. The SDK caps its own waits the same way.
		pause = min(pause, maxPause)
		l.mu.Lock()
		if until := now.Add(pause); until.After(l.pauseUntil) {
			l.pauseUntil = until
		}
		l.mu.Unlock()
		return
	}
	if left := r.UntilReset(now); r.Remaining > 0 && left > 0 {
		// Spread this process's share of what is left of the window over
		// the time it has left, never slower than a request per ten
		// seconds: the window's end restores the pace.
		l.mu.Lock()
		share := l.estimateShare(r)
		fair := max(rate.Limit(share*float64(r.Remaining)/left.Seconds()), 0.1)
		if fair < l.base {
			l.slowUntil = now.Add(left)
		} else {
			l.slowUntil = time.Time{}
		}
		l.bucket.SetLimitAt(now, min(l.base, fair))
		l.mu.Unlock()
	}
}

// estimateShare updates the estimate of this process's part of the key's
// requests with the answer r and returns it. Within one window, the
// platform's Remaining falls by every process's requests; this process
// saw answersSince of them. The estimate moves a quarter of the way to
// each new reading, and starts at 1: alone on the key.
func (l *Limiter) estimateShare(r sdk.Rate) float64 {
	l.answersSince++
	sameWindow := !l.lastReset.IsZero() && r.Reset.Sub(l.lastReset).Abs() < 2*time.Second
	if fell := l.lastRemaining - r.Remaining; sameWindow && fell > 0 {
		reading := min(float64(l.answersSince)/float64(fell), 1)
		l.share = max(0.75*l.share+0.25*reading, 0.02)
		l.answersSince = 0
	} else if !sameWindow {
		l.answersSince = 0
	}
	l.lastRemaining, l.lastReset = r.Remaining, r.Reset
	return l.share
}

// maxPause caps a pause the platform asks for.
const maxPause = time.Minute
