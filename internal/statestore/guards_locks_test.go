package statestore

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A bucket's lock is broken only when its holder has not said it lives
// for the stale time: a lock taken now, or taken long ago and renewed
// now (a long run), is refused to a run that would break stale locks,
// naming its holder.
func TestLiveLockIsNotBroken(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for name, st := range stores(t) {
		if name == "file" {
			continue // a local lock ends with its process: never stale
		}
		t.Run(name, func(t *testing.T) {
			for _, taken := range []time.Duration{0, 2 * time.Hour} {
				s := st.open(t)
				holder := NewHolder("apply -f long.csv", "", time.Now().Add(-taken))
				lease, err := s.Lock(ctx, holder, 0)
				if err != nil {
					t.Fatal(err)
				}
				if err := lease.Renew(ctx); err != nil {
					t.Fatal(err)
				}
				breaker := NewHolder("apply -f other.csv", "", time.Now())
				_, err = s.Lock(ctx, breaker, time.Hour)
				var locked *LockedError
				if !errors.As(err, &locked) || locked.Holder == nil || locked.Holder.ID != holder.ID {
					t.Fatalf("a lock taken %v ago and renewed now, broken after an hour: %v; want it refused, naming its holder", taken, err)
				}
				if h, err := s.Holder(ctx); err != nil || h == nil || h.ID != holder.ID {
					t.Fatalf("the lock after a refused break: %+v %v, want its holder's", h, err)
				}
				if err := lease.Release(ctx); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
