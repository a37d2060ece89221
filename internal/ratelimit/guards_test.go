package ratelimit

import (
	"context"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/wbsctl/wbsctl/sdk"
)

// guardCtx bounds a test of the limiter's waits: far longer than they
// take, and failing its test by name rather than the package's timeout.
func guardCtx(t *testing.T) context.Context {
	d := 20 * time.Second
	if deadline, ok := t.Deadline(); ok {
		d = min(d, time.Until(deadline)/2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// A pause the platform asks for (a 429) after a worker took its turn
// holds that worker back too: it starts no earlier than the pause's end,
// though its turn came before.
func TestPauseHoldsBackATurnAlreadyTaken(t *testing.T) {
	ctx := guardCtx(t)
	l := New(60 * 20) // 20/s: a turn every 50 ms
	if err := l.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan time.Time, 1)
	go func() {
		if err := l.Wait(ctx); err != nil {
			t.Errorf("the second turn: %v, after waiting for the pause", err)
		}
		done <- time.Now()
	}()
	// The second worker's turn is taken when the bucket owes a token.
	for l.bucket.Tokens() >= 0 {
		if ctx.Err() != nil {
			t.Fatal("the second worker never took its turn")
		}
		time.Sleep(time.Millisecond)
	}
	asked := time.Now()
	const pause = 400 * time.Millisecond
	l.ObserveResponse(sdk.ObservedResponse{Status: http.StatusTooManyRequests,
		Rate: sdk.ParseRate(http.Header{"Retry-After": {"0.4"}}, asked)})
	select {
	case at := <-done:
		if waited := at.Sub(asked); waited < pause-20*time.Millisecond {
			t.Fatalf("a worker whose turn was taken before a 429 asking %v started %v after it", pause, waited)
		}
	case <-ctx.Done():
		t.Fatal("the worker was still waiting for the pause's end at the test's deadline")
	}
}

// After a pause, the workers that waited for it resume at the limiter's
// pace, one turn after another, not all at once at the pause's end.
func TestWorkersResumeAtThePaceAfterAPause(t *testing.T) {
	ctx := guardCtx(t)
	l := New(60 * 10) // 10/s: a turn every 100 ms
	now := time.Now()
	l.ObserveResponse(sdk.ObservedResponse{Status: http.StatusTooManyRequests,
		Rate: sdk.ParseRate(http.Header{"Retry-After": {"0.3"}}, now)})
	const workers = 4
	var mu sync.Mutex
	var starts []time.Time
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			if err := l.Wait(ctx); err != nil {
				t.Errorf("a worker's wait: %v", err)
				return
			}
			mu.Lock()
			starts = append(starts, time.Now())
			mu.Unlock()
		})
	}
	wg.Wait()
	if ctx.Err() != nil {
		t.Fatal("the workers were still waiting for the pause's end at the test's deadline")
	}
	slices.SortFunc(starts, func(a, b time.Time) int { return a.Compare(b) })
	if len(starts) != workers {
		t.Fatalf("%d of %d workers started", len(starts), workers)
	}
	if first := starts[0].Sub(now); first < 250*time.Millisecond {
		t.Fatalf("the first worker started %v into a pause of 300 ms", first)
	}
	// Four turns at 10/s after the pause span 300 ms.
	if span := starts[workers-1].Sub(starts[0]); span < 250*time.Millisecond {
		t.Fatalf("%d workers that waited for a pause started within %v of one another, want them 100 ms apart", workers, span)
	}
}
