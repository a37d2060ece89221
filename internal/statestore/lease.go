package statestore

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"
)

// The times of a shared state's lock, together, since each bounds the
// next:
//
//   - a holder renews its lock every RenewEvery, each renewal bounded by
//     lockTimeout;
//   - it sends a platform write only within LeaseTerm of the start of its
//     last confirmed renewal (or of the take), by its own clock, both its
//     monotonic reading and the wall's (which a host's suspend moves on):
//     past it, the context its writes run under has ended, so a paused
//     holder that resumes sends nothing more, and a write still waiting
//     for its answer is given up at the term, whatever --request-timeout
//     says;
//   - a write sent within the term may still wait at the platform before
//     it is acted on: RequestBound is the most that is allowed for (the
//     SDK's default bound of an attempt);
//   - the server's Date and Last-Modified count whole seconds, and two
//     clocks drift: clockSlack is allowed for them;
//   - so no write of a holder is acted on later than LeaseTerm +
//     RequestBound after the start of its last renewal, which the server
//     wrote after that start. A breaker takes a lock only once the
//     server's clock says it was last written MinBreakStale ago, and
//     MinBreakStale is that sum and the slack: the holder has stopped by
//     then, whatever the two hosts' clocks say.
const (
	RenewEvery    = 20 * time.Second
	LeaseTerm     = 55 * time.Second
	RequestBound  = 30 * time.Second
	clockSlack    = 5 * time.Second
	MinBreakStale = LeaseTerm + RequestBound + clockSlack

	// lockTimeout bounds each call on a lock object; stateTimeout a
	// state's read or write; releaseTimeout the release at a run's end,
	// which a second signal does not cut short: a healthy bucket
	// releases in far less, a hung one holds the run no longer.
	lockTimeout    = 10 * time.Second
	stateTimeout   = 2 * time.Minute
	releaseTimeout = 10 * time.Second
)

// ErrTimeout is a call to a bucket that got no answer in its time.
var ErrTimeout = errors.New("the bucket did not answer")

// ErrMayHoldLock is a take that failed after it may have written the
// lock: the lock may be left, under the run's own id.
var ErrMayHoldLock = errors.New("the lock may be left")

// ErrLockLost is a lock whose holding could not be confirmed within
// LeaseTerm, or that another run took: its holder sends no more writes.
var ErrLockLost = errors.New("the state's lock was lost during the run")

// Broken is a stale lock that a Lock broke: whose it was, and how long
// before the break the server had last written it.
type Broken struct {
	Holder Holder        `json:"holder"`
	Age    time.Duration `json:"-"`
	// At is the server's time of the break, where it said.
	At time.Time `json:"at,omitzero"`
}

// Acquisition is how a run takes a state's lock.
type Acquisition struct {
	Holder Holder
	// Timeout is how long to wait for another run's lock (0: fail at
	// once); BreakStaleAfter breaks a lock not written for that long, by
	// the store's clock (0: never).
	Timeout, BreakStaleAfter time.Duration
	// Waiting, when given, is told once, with the holder, that the run
	// waits.
	Waiting func(holder string)
	// StateArg is how the run was given the state, for the command that
	// releases a lock left behind: "" where WBSCTL_STATE gave it.
	StateArg string
	// Every is how often the lock is renewed (0: RenewEvery); Now the
	// holder's clock (nil: the wall's).
	Every time.Duration
	Now   func() time.Time
}

// Acquire takes store's lock as a says, waiting for another run's where
// a gives a timeout (the wait ends with wait, which the first signal
// ends), and holds it, renewing it and fencing the run's writes, until
// Release. ctx is the run's: the fence ends with it.
func Acquire(ctx, wait context.Context, store Locker, a Acquisition) (*Held, error) {
	lease, taken, err := take(wait, store, a)
	if errors.Is(err, ErrMayHoldLock) {
		return nil, fmt.Errorf("%w; %s releases it", err, UnlockCommand(a.Holder.ID, a.StateArg))
	}
	if err != nil {
		return nil, LockRefusal(err, a.StateArg)
	}
	h := Keep(ctx, lease, taken, a.Every, a.Now)
	h.unlock = UnlockCommand(a.Holder.ID, a.StateArg)
	return h, nil
}

// take takes the lock, polling while another run holds it, up to
// a.Timeout. It returns when the take that got it started, by this
// host's clock: where the lease's term starts.
func take(ctx context.Context, store Locker, a Acquisition) (Lease, time.Time, error) {
	taken := time.Now()
	lease, err := store.Lock(ctx, a.Holder, a.BreakStaleAfter)
	if !errors.Is(err, ErrLocked) || a.Timeout <= 0 {
		return lease, taken, err
	}
	if a.Waiting != nil {
		var locked *LockedError
		who := "another run"
		if errors.As(err, &locked) && locked.Holder != nil {
			who = locked.Holder.String()
		}
		a.Waiting(who)
	}
	deadline := time.NewTimer(a.Timeout)
	defer deadline.Stop()
	poll := time.NewTicker(250 * time.Millisecond)
	defer poll.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil, taken, fmt.Errorf("waiting for the state's lock: %w", context.Cause(ctx))
		case <-deadline.C:
			return nil, taken, fmt.Errorf("%w after waiting %s", err, a.Timeout)
		case <-poll.C:
			taken = time.Now()
			if lease, err = store.Lock(ctx, a.Holder, a.BreakStaleAfter); !errors.Is(err, ErrLocked) {
				return lease, taken, err
			}
		}
	}
}

// LockRefusal says how to go on from err, a lock another run holds
// (other errors are returned as they are): wait, or, for a lock that
// state unlock releases, the exact command, with the state as stateArg
// names it.
func LockRefusal(err error, stateArg string) error {
	var locked *LockedError
	if !errors.As(err, &locked) {
		return err
	}
	err = fmt.Errorf("%w; nothing was sent: wait for it to end, or give --lock-timeout to wait; %s", err, locked.Ends)
	if locked.Unlockable && locked.Holder != nil {
		err = fmt.Errorf("%w; once its run is gone: %s", err, UnlockCommand(locked.Holder.ID, stateArg))
	}
	return err
}

// UnlockCommand is the command that releases the lock of id on the
// state that stateArg names ("" where WBSCTL_STATE names it).
// The id, read from a bucket, is written as a shell reads it back as it
// is: bare where it is one wbsctl makes, quoted otherwise; stateArg is
// quoted already (cmdutil.StateArg).
func UnlockCommand(id, stateArg string) string {
	if !ownID.MatchString(id) {
		id = "'" + strings.ReplaceAll(BucketText(id), "'", `'\''`) + "'"
	}
	if stateArg == "" {
		return "wbsctl state unlock " + id + " (WBSCTL_STATE names the state)"
	}
	return "wbsctl state unlock " + id + " --state " + stateArg
}

// ownID is a lock id as NewHolder makes it.
var ownID = regexp.MustCompile(`^[0-9a-f]{16}$`)

// Held is a lock held through a run: renewed every RenewEvery until
// Release, and a fence for the run's platform writes.
type Held struct {
	lease Lease
	now   func() time.Time
	every time.Duration

	mu        sync.Mutex
	confirmed time.Time // the start of the last confirmed renewal
	lastErr   error     // the last renewal's error, nil after a confirmed one
	lost      error

	// breakable is a lease that another run may break once its term
	// passed unconfirmed; a local file's lock ends only with its
	// process, and its holder may be paused (a job stopped with ^Z) for
	// as long as a person likes.
	breakable bool

	fence  context.Context
	cancel context.CancelCauseFunc
	unlock string // the command that releases the lock, for a release that fails
	done   chan struct{}
	wg     sync.WaitGroup
}

// Keep holds lease, taken at taken (by now, read before the take was
// sent), renewing it every every (0: RenewEvery) until Release. ctx is
// the run's: the fence ends with it too. now is the holder's clock, nil
// for the wall's (whose monotonic reading measures the term).
func Keep(ctx context.Context, lease Lease, taken time.Time, every time.Duration, now func() time.Time) *Held {
	if every <= 0 {
		every = RenewEvery
	}
	if now == nil {
		now = time.Now
	}
	_, unbreakable := lease.(interface{ endsWithItsProcess() })
	h := &Held{lease: lease, now: now, every: every, confirmed: taken, done: make(chan struct{}), breakable: !unbreakable}
	h.fence, h.cancel = context.WithCancelCause(ctx)
	h.wg.Go(h.renew)
	return h
}

// renew renews the lease every h.every until Release; it ends the fence
// once the lock was taken from the run, or once a term passed with no
// confirmed renewal. A renewal that fails otherwise (a bucket slow or
// down) is tried again at the next turn: the term decides.
func (h *Held) renew() {
	tick := time.NewTicker(h.every)
	defer tick.Stop()
	term := time.NewTimer(h.left())
	defer term.Stop()
	for {
		select {
		case <-h.done:
			return
		case <-h.fence.Done():
			return
		case <-term.C:
			if h.check() != nil {
				return
			}
			term.Reset(h.left())
		case <-tick.C:
			start := h.now()
			err := h.lease.Renew(h.fence)
			h.mu.Lock()
			if err == nil {
				h.confirmed, h.lastErr = start, nil
			} else {
				h.lastErr = err
			}
			h.mu.Unlock()
			if errors.Is(err, ErrLocked) {
				h.lose(fmt.Errorf("%w: %v", ErrLockLost, err))
				return
			}
			term.Reset(h.left())
		}
	}
}

// left is the time the term has left.
func (h *Held) left() time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	return max(LeaseTerm-h.elapsed(), 0)
}

// elapsed is the time since the last confirmation, the longer of the
// monotonic clock's (which a process paused, or a clock set, does not
// fool) and the wall's (which a host's suspend, that stops the monotonic
// clock on Linux, does not fool). h.mu is held.
func (h *Held) elapsed() time.Duration {
	now := h.now()
	return max(now.Sub(h.confirmed), now.Round(0).Sub(h.confirmed.Round(0)))
}

// check ends the fence once the term passed with no confirmed renewal,
// and returns why; nil while the lock is held.
func (h *Held) check() error {
	h.mu.Lock()
	lost, since, last := h.lost, h.elapsed(), h.lastErr
	h.mu.Unlock()
	if lost != nil || since < LeaseTerm || !h.breakable {
		return lost
	}
	why := "no renewal was due"
	if last != nil {
		why = "the last renewal: " + last.Error()
	}
	return h.lose(fmt.Errorf("%w: not confirmed for %s (%s)", ErrLockLost, since.Truncate(time.Second), why))
}

// lose ends the fence with err, once.
func (h *Held) lose(err error) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.lost == nil {
		h.lost = err
		h.cancel(err)
	}
	return h.lost
}

// Context is the context of the run's platform writes: it ends, with the
// loss as its cause (matching ErrLockLost), once the lock was taken or
// not confirmed within LeaseTerm. Its Err looks at the clock each time it
// is asked, so that a check made just before a request is sent is exact
// even where the process was paused past the term and no timer has run
// since.
func (h *Held) Context() context.Context { return fenced{h.fence, h} }

type fenced struct {
	context.Context
	h *Held
}

func (f fenced) Err() error {
	if err := f.Context.Err(); err != nil {
		return err
	}
	if f.h.check() != nil {
		return f.Context.Err()
	}
	return nil
}

// Lost is why the lock was lost, nil while it is held.
func (h *Held) Lost() error { return h.check() }

// Broken is the stale lock the take broke, nil where it broke none.
func (h *Held) Broken() *Broken { return h.lease.Broken() }

// Verified says that the run wrote the state after reading everything
// since its take broke a lock: its release need not hand the break on.
func (h *Held) Verified() {
	if v, ok := h.lease.(interface{ markVerified() }); ok {
		v.markVerified()
	}
}

// Release stops the renewals and releases the lock, bounded by its own
// releaseTimeout whatever ctx says: a second signal neither leaves a
// healthy bucket's lock behind nor waits on a hung one. A release that
// fails says that the lock is left, and the command that releases it.
func (h *Held) Release(ctx context.Context) error {
	close(h.done)
	h.cancel(nil) // a renewal in flight ends now: the release follows
	h.wg.Wait()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
	defer cancel()
	if err := h.lease.Release(ctx); err != nil {
		if h.unlock == "" {
			return fmt.Errorf("releasing the state's lock: %w; the lock is left", err)
		}
		return fmt.Errorf("releasing the state's lock: %w; the lock is left: %s releases it", err, h.unlock)
	}
	return nil
}
