// Package state is `wbsctl state`: a look at apply's state, local or
// shared in a bucket, and the release of a lock that a killed run left,
// without a credential of the platform or a request to it.
package state

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/engine"
	"github.com/wbsctl/wbsctl/internal/output"
	"github.com/wbsctl/wbsctl/internal/statestore"
)

// NewCmdState returns `wbsctl state` and its subcommands.
func NewCmdState(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "state",
		Short: "Look at the state of apply --state, and release a lock a killed run left",
		Long: `Look at the state that apply --state keeps, a local file or an object
of a bucket (s3://BUCKET/KEY): the platform it belongs to, its lineage
and serial, how many elements it records, and who holds its lock; and
release the lock of a run that was killed; move a state between a file
and a bucket.`,
	}
	cmd.AddCommand(NewCmdShow(f, nil), NewCmdUnlock(f, nil), NewCmdPull(f, nil), NewCmdPush(f, nil))
	return cmd
}

// ShowOptions are the inputs of `wbsctl state show`.
type ShowOptions struct {
	cmdutil.Deps
	State string
}

// NewCmdShow returns `wbsctl state show`.
func NewCmdShow(f *cmdutil.Factory, runF func(context.Context, *ShowOptions) error) *cobra.Command {
	opts := &ShowOptions{Deps: f.Deps()}
	cmd := &cobra.Command{
		Use:   "show [STATE]",
		Short: "Show a state: its platform, lineage, serial, elements and lock",
		Long: `Show the state of apply --state STATE (a path, file:// or s3://BUCKET/KEY):
the platform and client id it belongs to, its lineage (made with it)
and serial (one more at each write), how many elements it records, and
who holds its lock, if a run does: what it runs, on which host and
process, since when, when it last renewed the lock, and its CI job. It
reads the state as the last write left it, and sends nothing to the
platform. STATE is the argument, --state or WBSCTL_STATE, as apply
takes it.`,
		Example: `  wbsctl state show .wbsctl/state
  wbsctl state show 's3://wbs-states/prod/state?region=eu-central-1' -o json --jq .lock
  WBSCTL_STATE='s3://wbs-states/prod/state?region=eu-central-1' wbsctl state show`,
		Args: cobra.RangeArgs(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if opts.State, _, err = stateOf(cmd, f, opts.State, args, 1); err != nil {
				return err
			}
			return cmdutil.Pick(runF, runShow)(cmd.Context(), opts)
		},
	}
	cmdutil.StateFlag(cmd, &opts.State)
	return f.AddOutputFlags(cmd, cmdutil.RowFormats...)
}

func runShow(ctx context.Context, o *ShowOptions) error {
	store, err := open(ctx, o.State)
	if err != nil {
		return err
	}
	defer store.Close()
	sum, err := engine.InspectState(ctx, store)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: no state there (apply --state writes one)", store)
	}
	if err != nil {
		return err
	}
	lock := "not held"
	if sum.Lock != nil {
		lock = "held by " + sum.Lock.String()
	}
	if o.Mode().Structured() {
		p, err := o.Printer("STATE", "BASE URL", "CLIENT ID", "LINEAGE", "SERIAL", "ELEMENTS", "LOCK")
		if err != nil {
			return err
		}
		return p.Single(sum, sum.Path, sum.BaseURL, sum.ClientID, sum.Lineage, strconv.FormatInt(sum.Serial, 10), strconv.Itoa(sum.Elements), lock)
	}
	_, err = fmt.Fprintf(o.IO.Out, "state:    %s\nplatform: %s as %s\nlineage:  %s\nserial:   %d\nelements: %d\nlock:     %s\n",
		output.Escape(sum.Path), output.Escape(sum.BaseURL), output.Escape(sum.ClientID), output.Escape(sum.Lineage), sum.Serial, sum.Elements, output.Escape(lock))
	if err == nil && sum.Break != nil {
		_, err = fmt.Fprintf(o.IO.Out, "break:    %s\n", breakLine(sum.Break))
	}
	return err
}

// breakLine tells of the last lock broken of a state.
func breakLine(b *engine.BreakRecord) string {
	s := fmt.Sprintf("the lock of %s was broken after %s unrenewed, by %s", b.Holder.String(), time.Duration(b.StaleSeconds)*time.Second, b.By.String())
	if b.Verified {
		return s + "; a plan has read every link since"
	}
	return s + "; until a plan reads every link, plans trust none of the state's links"
}

// UnlockOptions are the inputs of `wbsctl state unlock`.
type UnlockOptions struct {
	cmdutil.Deps
	State, ID string
	// Force releases a lock renewed too lately to tell that its run is
	// gone.
	Force bool
}

// NewCmdUnlock returns `wbsctl state unlock`.
func NewCmdUnlock(f *cmdutil.Factory, runF func(context.Context, *UnlockOptions) error) *cobra.Command {
	opts := &UnlockOptions{Deps: f.Deps()}
	cmd := &cobra.Command{
		Use:   "unlock [STATE] ID",
		Short: "Release the lock of a shared state that a killed run left",
		Long: `Release the lock of the shared state STATE (s3://BUCKET/KEY) that names
ID: the lock of a run that was killed, which a refused run and state show
name. A lock of another id is left as it is, so that a lock taken since
is not released by mistake. A local state's lock ends with its process:
there is nothing to release. The lock is released by a write over the
version read: a lock renewed or taken meanwhile is left as it is. A lock
the bucket saw renewed less than 1m30s ago may be a live run's, which
could still write: it is released only with --force, once you know its
run is gone. The next run treats a released lock as broken: it trusts
none of the state's links until it has read them all. STATE is the first
argument, --state or WBSCTL_STATE, as apply takes it.`,
		Example: `  wbsctl state show 's3://wbs-states/prod/state?region=eu-central-1'
  wbsctl state unlock 's3://wbs-states/prod/state?region=eu-central-1' 3f9c2a7d41e0b865
  WBSCTL_STATE='s3://wbs-states/prod/state?region=eu-central-1' wbsctl state unlock 3f9c2a7d41e0b865`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if opts.State, args, err = stateOf(cmd, f, opts.State, args, 2); err != nil {
				return err
			}
			opts.ID = args[0]
			return cmdutil.Pick(runF, runUnlock)(cmd.Context(), opts)
		},
	}
	cmdutil.StateFlag(cmd, &opts.State)
	cmd.Flags().BoolVar(&opts.Force, "force", false, "release a lock renewed less than 1m30s ago: its run is known to be gone")
	return cmd
}

func runUnlock(ctx context.Context, o *UnlockOptions) error {
	store, err := open(ctx, o.State)
	if err != nil {
		return err
	}
	defer store.Close()
	if err := store.Unlock(ctx, o.ID, o.Force); err != nil {
		return err
	}
	_, err = fmt.Fprintf(o.IO.ErrOut, "released the lock %s of %s\n", output.Escape(o.ID), output.Escape(store.String()))
	return err
}

// MoveOptions are the inputs of `wbsctl state pull` and `state push`.
type MoveOptions struct {
	cmdutil.Deps
	From, To string
	// Force copies over a state of another lineage or a higher serial.
	Force bool
	// JobURL is the CI job's address, for the lock to name.
	JobURL string
	// toFromEnv is a To that WBSCTL_STATE gave.
	toFromEnv bool
}

// NewCmdPull returns `wbsctl state pull`.
func NewCmdPull(f *cmdutil.Factory, runF func(context.Context, *MoveOptions) error) *cobra.Command {
	opts := &MoveOptions{Deps: f.Deps()}
	cmd := &cobra.Command{
		Use:   "pull [STATE] FILE",
		Short: "Copy a state (such as s3://BUCKET/KEY) to a local file",
		Long: `Copy the state STATE (a path, file:// or s3://BUCKET/KEY) to FILE, written
0600 beside it and renamed into place: to look at it, keep a copy, or
carry it to another store with state push. The state is checked first; a
damaged one is not copied, nor one of another platform over FILE, nor,
unless --force, one of another lineage or a lower serial than FILE's.
STATE is the first argument, --state or WBSCTL_STATE, as apply takes it.`,
		Example: `  wbsctl state pull 's3://wbs-states/prod/wbs.state?region=eu-central-1' backup.state`,
		Args:    cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if opts.From, args, err = stateOf(cmd, f, opts.From, args, 2); err != nil {
				return err
			}
			opts.To, opts.JobURL = args[0], cmdutil.JobURL(f.Getenv)
			return cmdutil.Pick(runF, runMove)(cmd.Context(), opts)
		},
	}
	cmdutil.StateFlag(cmd, &opts.From)
	cmd.Flags().BoolVar(&opts.Force, "force", false, "copy over a state of another lineage or a higher serial")
	return cmd
}

// NewCmdPush returns `wbsctl state push`.
func NewCmdPush(f *cmdutil.Factory, runF func(context.Context, *MoveOptions) error) *cobra.Command {
	opts := &MoveOptions{Deps: f.Deps()}
	cmd := &cobra.Command{
		Use:   "push FILE [STATE]",
		Short: "Copy a local state file to a state (such as s3://BUCKET/KEY)",
		Long: `Copy the state file FILE to STATE (a path, file:// or s3://BUCKET/KEY),
holding STATE's lock while it does: to start a shared state from a local
one, or put a copy back. It refuses a state of another platform or
client id than STATE's, and, unless --force, one of another lineage or
a lower serial than STATE's (an older copy over a newer state). STATE
is the last argument, --state or WBSCTL_STATE, as apply takes it.`,
		Example: `  wbsctl state push .wbsctl/state 's3://wbs-states/prod/wbs.state?region=eu-central-1'`,
		Args:    cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.From, opts.JobURL = args[0], cmdutil.JobURL(f.Getenv)
			var err error
			if opts.To, opts.toFromEnv, err = pushTarget(cmd, f, opts.To, args[1:]); err != nil {
				return err
			}
			return cmdutil.Pick(runF, runMove)(cmd.Context(), opts)
		},
	}
	cmdutil.StateFlag(cmd, &opts.To)
	cmd.Flags().BoolVar(&opts.Force, "force", false, "copy over a state of another lineage or a higher serial")
	return cmd
}

// runMove copies the state of From to To, under To's lock, after the
// checks of state push.
func runMove(ctx context.Context, o *MoveOptions) error {
	from, err := open(ctx, o.From)
	if err != nil {
		return err
	}
	defer from.Close()
	to, err := open(ctx, o.To)
	if err != nil {
		return err
	}
	defer to.Close()
	moved, err := engine.CopyState(ctx, from, to, cmdutil.StateArg(o.To, o.toFromEnv), statestore.NewHolder("state copy to "+to.String(), o.JobURL, time.Now()), o.Force)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: no state there", from)
	}
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(o.IO.ErrOut, "copied the state of %s (lineage %s, serial %d, %s) to %s\n",
		output.Escape(moved.BaseURL), output.Escape(moved.Lineage), moved.Serial, output.Count(moved.Elements, "element"), output.Escape(to.String()))
	return err
}

// stateOf is the state of a command that takes it as an argument, of
// which it takes up to full arguments when the state is one of them (the
// first), or from --state or WBSCTL_STATE; it returns the arguments
// left.
func stateOf(cmd *cobra.Command, f *cmdutil.Factory, flag string, args []string, full int) (string, []string, error) {
	given := cmd.Flags().Changed("state")
	switch {
	case len(args) == full && given:
		return "", nil, &cmdutil.UsageError{Err: fmt.Errorf("the state is given twice: as %q and as --state", args[0])}
	case len(args) == full:
		return args[0], args[1:], nil
	}
	state, _ := cmdutil.StateFromFlagOrEnv(cmd, f, flag)
	if state == "" {
		return "", nil, &cmdutil.UsageError{Err: errors.New("name the state: as an argument, with --state, or in WBSCTL_STATE")}
	}
	return state, args, nil
}

// pushTarget is the state state push writes: its second argument, or
// --state, or WBSCTL_STATE (fromEnv).
func pushTarget(cmd *cobra.Command, f *cmdutil.Factory, flag string, args []string) (state string, fromEnv bool, err error) {
	if state, _, err = stateOf(cmd, f, flag, args, 1); err != nil {
		return "", false, err
	}
	return state, len(args) == 0 && !cmd.Flags().Changed("state"), nil
}

// open opens the store of a state argument; one wbsctl cannot open is a
// usage error.
func open(ctx context.Context, state string) (statestore.Store, error) {
	store, err := statestore.Open(ctx, state)
	if err != nil {
		return nil, &cmdutil.UsageError{Err: err}
	}
	return store, nil
}
