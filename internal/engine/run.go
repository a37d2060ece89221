package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/wbsctl/wbsctl/internal/statestore"
	"github.com/wbsctl/wbsctl/internal/wbsfile"
	"github.com/wbsctl/wbsctl/sdk"
)

// Input is what one run of apply is given.
type Input struct {
	// File is the file read: its records are planned and its invalid
	// records reported. Nil with Saved.
	File *wbsfile.File
	// Saved is a saved plan to carry out instead, checked against the
	// platform before anything is written.
	Saved *SavedPlan
	// State is where the state is kept, nil for none; Refresh makes it
	// anew instead of trusting it.
	State   statestore.Store
	Refresh bool
	// Commit is the commit the file is of, where the run knows it (a CI
	// job); a saved plan's own is used in its place. A run of a commit
	// older than the state's last apply is refused (ErrOlderCommit)
	// unless AllowOlderCommit.
	Commit           *statestore.Commit
	AllowOlderCommit bool
	// VerifyBudget is how many of the state's trusted entries a plan of
	// the file reads again, those verified longest ago first.
	VerifyBudget VerifyBudget
	Plan         PlanOptions
	// DryRun ends the run with its plan.
	DryRun bool
	// Stop, ended by the first signal, ends planning and a wait for the
	// state's lock at once, and starts no more changes: those in flight
	// finish. Its cause names the signal. The run's own context is the
	// other one: ended, it ends everything now. A nil Stop never ends.
	Stop context.Context
	// Prune is what the run may delete (see Prune); a saved plan's says
	// whether the plan was made with --prune.
	Prune Prune
	// KeepCorrelationIDs keeps every outcome's correlation id, for a
	// report.
	KeepCorrelationIDs bool
	// Holder is who the state's lock names while the run holds it;
	// LockTimeout is how long the run waits for another's lock (0: it
	// fails at once); BreakStaleAfter breaks a shared state's lock not
	// renewed for that long (0: never).
	Holder          statestore.Holder
	LockTimeout     time.Duration
	BreakStaleAfter time.Duration

	// StateArg is how the command was given the state, for the command
	// that releases a lock left behind: "" where WBSCTL_STATE gave it.
	StateArg string

	// renewEvery is how often the lock is renewed (0:
	// statestore.RenewEvery); clock is the holder's clock, nil for the
	// wall's.
	renewEvery time.Duration
	clock      func() time.Time
}

// ErrLockLost is a run whose lock of a shared state could not be renewed:
// another run may have broken it. The run started no change after that.
var ErrLockLost = statestore.ErrLockLost

// ErrTooManyDeletes is a plan that deletes more elements than
// Prune.MaxDeletes allows.
var ErrTooManyDeletes = errors.New("the plan deletes more elements than allowed")

// Hooks are the parts of a run that belong to the command: what a person
// is asked and shown. Each may be nil.
type Hooks struct {
	// ConfirmPrune is asked whether the deletes of a plan made with
	// --prune may be made, and how many there are, once the plan is known
	// and before anything is written (Prune.confirm says when): the
	// command's --yes, or its prompt. Nil holds them back; an error ends
	// the run with nothing sent.
	ConfirmPrune func(deletes int) (bool, error)
	// Planned sees the plan of a run that is not a dry run, once its
	// deletes are decided, before anything is written.
	Planned func(plan *Plan)
	// OnResult is called with each change's outcome as it is known.
	OnResult func(Result)
	// Warn reports an error the run survives: the state's last write.
	Warn func(error)
	// Waiting is told, once, that the run waits for the state's lock,
	// and who holds it.
	Waiting func(holder string)
}

// Outcome is what a run did: its plan, and the results of a run that is
// not a dry run.
type Outcome struct {
	Plan    *Plan
	Results *Results

	// prune is the run's, which HeldBack asks.
	prune *Prune
}

// Run is apply's sequence, kept in this one place: it locks and reads the
// state, plans the file or checks the saved plan against the platform,
// and for a dry run records what the plan read in the state and stops
// there. Otherwise it has the prune confirmed, lets Hooks.Planned see the
// plan, writes the state before the first change (so that an interrupted
// run leaves no entry that may no longer hold), makes the changes, adds
// the file's invalid records to the results, and writes the state with
// what was made. A planning error, ErrPlanStale among them, means nothing
// was sent.
func Run(ctx context.Context, c *sdk.Client, in Input, h Hooks) (*Outcome, error) {
	file := in.File
	if file == nil {
		file = &wbsfile.File{}
	}
	opts := in.Plan
	opts.prune = in.Prune.decide(file, in.Saved)
	var state *runState
	// stop ends at the first signal, and, with a shared state, once its
	// lock is lost; writes run under ctx, fenced by the lock.
	stop, writes := in.stopContext(), ctx
	lockLost := func() error { return nil }
	var held *statestore.Held
	if in.State != nil {
		if in.Holder.ID == "" {
			in.Holder = statestore.NewHolder("apply", "", time.Now())
		}
		// The reads before the first write end at the first signal.
		reads, endReads := in.planContext(ctx)
		defer endReads()
		var err error
		held, err = statestore.Acquire(ctx, reads, in.State, statestore.Acquisition{Holder: in.Holder,
			Timeout: in.LockTimeout, BreakStaleAfter: in.BreakStaleAfter, Waiting: h.Waiting, StateArg: in.StateArg,
			Every: in.renewEvery, Now: in.clock})
		if err != nil {
			return nil, in.interrupted(err, "while waiting for the state's lock")
		}
		// Released however the run ends, a signal's cancelled context
		// included, within the release's own bound; a release that
		// fails leaves the lock, which is said with the command that
		// releases it.
		defer func() {
			if err := held.Release(ctx); err != nil && h.Warn != nil {
				h.Warn(err)
			}
		}()
		writes = held.Context()
		var cancelStop context.CancelCauseFunc
		stop, cancelStop = context.WithCancelCause(stop)
		defer cancelStop(nil)
		defer context.AfterFunc(writes, func() { cancelStop(context.Cause(writes)) })()
		lockLost = held.Lost
		if state, err = loadState(reads, in.State, c.BaseURL(), c.ClientID(), file.Records); err != nil && !in.Refresh {
			return nil, in.interrupted(err, "while reading the state")
		}
		if in.Refresh {
			// Its records made anew, it replaces the state the run found;
			// a state that could be read goes on in its history (lineage,
			// serial, applies, the last commit and break), and the run,
			// which reads everything, verifies a break.
			found := state
			state = newState(c.BaseURL(), c.ClientID())
			if err == nil && found != nil {
				state.stateHead = found.stateHead
			}
			state.trusted(held.Broken(), in.Holder, in.Saved == nil)
			if state.version, err = storedVersion(reads, in.State); err != nil {
				return nil, in.interrupted(err, "while reading the state")
			}
		} else if state.trusted(held.Broken(), in.Holder, in.Saved == nil) {
			opts.known, opts.stated = state.known, state.Elements
			opts.known.recheck(in.VerifyBudget)
		}
		state.held = held
		if err := state.CommitRefusal(in.commit()); err != nil && !in.AllowOlderCommit {
			return nil, err
		}
		if err := in.Saved.checkState(state.stateFile); err != nil {
			return nil, err
		}
	}
	plan, err := in.plan(ctx, c, file, opts)
	if err != nil {
		return nil, err
	}
	if state == nil {
		plan.Verification = nil // nothing trusted: every link the plan holds was read
	}
	plan.commit = in.commit()
	out := &Outcome{Plan: plan, prune: opts.prune}
	tooMany := opts.prune.planned(plan)
	if plan.Unread > 0 {
		tooMany = fmt.Errorf("%w: the links of %d of the elements were not read within the plan's time; the state holds what was read, and the next plan goes on from there",
			ErrPartialPlan, plan.Unread)
	}
	if tooMany != nil && !in.DryRun {
		return out, tooMany
	}
	if in.DryRun {
		if state != nil {
			// A dry run changes nothing, but what it read spares the next
			// run the same reads: the state records it.
			state.begin(plan)
			state.observed()
			if err := state.save(ctx, in.State); err != nil {
				if h.Warn != nil {
					h.Warn(fmt.Errorf("writing the state: %w; the plan stands, and the next run reads the links again", err))
				}
			} else {
				plan.state = &StateVersion{Lineage: state.Lineage, Serial: state.Serial, Applies: state.Applies}
			}
		}
		// A plan past --max-deletes, or partial, is the run's to show
		// whole, and refused all the same.
		return out, tooMany
	}
	if err := opts.prune.confirm(plan, h.ConfirmPrune); err != nil {
		return out, err
	}
	if h.Planned != nil {
		h.Planned(plan)
	}
	if state != nil {
		state.begin(plan)
		state.Applies++
		if commit := in.commit(); commit != nil {
			state.Commit = commit
		}
		// A holder paused past its term (during the plan) writes not
		// even the state: its lock may be another run's by now.
		if err := lockLost(); err != nil {
			return out, fmt.Errorf("%w; nothing was sent", err)
		}
		if err := state.save(ctx, in.State); err != nil {
			if lost := lockLost(); lost != nil {
				err = lost // what moved the state
			}
			return out, fmt.Errorf("writing the state: %w; nothing was sent", err)
		}
	}
	out.Results = execute(writes, c, plan, executeOptions{
		Concurrency: opts.Concurrency, PageSize: opts.PageSize, MaxPages: opts.MaxPages, Stop: stop,
		prune: opts.prune, KeepCorrelationIDs: in.KeepCorrelationIDs, OnResult: h.OnResult,
	})
	for _, r := range file.Invalid {
		out.Results.Add(Result{Line: int(r.Line), Code: r.Code, Action: ActionCreate, Status: StatusInvalid,
			Detail: "left out: invalid", Problems: file.ProblemsOf(r)})
	}
	if state != nil {
		state.finish(out.Results)
		// With its own context: the state records what a run that a
		// second signal cut short did make, within saveGrace of it.
		saveCtx, cancel := graced(ctx, saveGrace)
		defer cancel()
		if err := state.save(saveCtx, in.State); err != nil && h.Warn != nil {
			switch {
			case errors.Is(err, ErrStateMoved): // which says what to do
			case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded), errors.Is(err, statestore.ErrTimeout):
				// The write before the changes left out every element
				// this run was to change.
				err = fmt.Errorf("%w; the state holds what it held before this run's changes, and the next run reads those elements again", err)
			default:
				err = fmt.Errorf("%w; run with --refresh next time", err)
			}
			h.Warn(fmt.Errorf("writing the state: %w", err))
		}
	}
	if err := lockLost(); err != nil {
		return out, fmt.Errorf("%w; no change was started after it (one in flight as it was lost is reported with its error), and the state was written only if no other run had written it", err)
	}
	return out, nil
}

// commit is the commit the run's file is of: the saved plan's, or Commit.
func (in Input) commit() *statestore.Commit {
	if in.Saved != nil {
		return in.Saved.Commit
	}
	return in.Commit
}

// ErrPartialPlan is a plan whose deadline (PlanOptions.Deadline) passed
// before it read every link it needed: it is shown, and its reads kept in
// the state, but it is never carried out.
var ErrPartialPlan = errors.New("the plan is partial")

// ErrOlderCommit is a run of a file older than the state's last apply.
var ErrOlderCommit = statestore.ErrOlderCommit

// stopContext is Stop, or a context that never ends without one.
func (in Input) stopContext() context.Context {
	if in.Stop == nil {
		return context.Background()
	}
	return in.Stop
}

// planContext is ctx, ended by the first signal too, with its cause: the
// reads before the first write (the lock, the state, the plan) stop at
// once, as nothing was sent. end releases it.
func (in Input) planContext(ctx context.Context) (_ context.Context, end func()) {
	if in.Stop == nil {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(in.Stop, func() { cancel(in.interruption()) })
	return ctx, func() {
		stop()
		cancel(nil)
	}
}

// interrupted is err, named as the first signal's where one came, as
// what ended the run's reads while doing what.
func (in Input) interrupted(err error, doing string) error {
	switch {
	case in.Stop == nil || in.Stop.Err() == nil:
		return err
	case errors.Is(err, statestore.ErrMayHoldLock):
		return fmt.Errorf("%w %s: nothing was sent to the platform; %v", in.interruption(), doing, err)
	}
	return fmt.Errorf("%w %s: nothing was sent", in.interruption(), doing)
}

// saveGrace is how long the state's last write may go on after a second
// signal: enough for a bucket that answers, not a wait on one that hangs.
const saveGrace = 5 * time.Second

// graced is a context that outlives ctx by grace: cancelled grace after
// ctx ends.
func graced(ctx context.Context, grace time.Duration) (context.Context, context.CancelFunc) {
	out, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stopTimer := context.AfterFunc(ctx, func() {
		t := time.AfterFunc(grace, cancel)
		context.AfterFunc(out, func() { t.Stop() })
	})
	return out, func() {
		stopTimer()
		cancel()
	}
}

// interruption is the error that names what ended Stop.
func (in Input) interruption() error {
	if in.Stop == nil || context.Cause(in.Stop) == nil {
		return errors.New("interrupted")
	}
	return context.Cause(in.Stop)
}

// plan is the plan of the file, or the saved plan checked against the
// platform. The first signal ends it at once: it only reads. A planning
// error after the signal is the signal's, whichever came first.
func (in Input) plan(ctx context.Context, c *sdk.Client, file *wbsfile.File, opts PlanOptions) (*Plan, error) {
	ctx, end := in.planContext(ctx)
	defer end()
	var plan *Plan
	var err error
	if in.Saved != nil {
		plan, err = in.Saved.Verify(ctx, c, opts)
	} else {
		plan, err = buildPlan(ctx, c, file.Records, opts)
	}
	if err != nil && in.Stop != nil && in.Stop.Err() != nil {
		return nil, fmt.Errorf("%w while planning: nothing was sent", in.interruption())
	}
	return plan, err
}
