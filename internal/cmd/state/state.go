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
release the lock of a run that was killed.`,
	}
	cmd.AddCommand(NewCmdShow(f, nil), NewCmdUnlock(f, nil))
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
	return &cobra.Command{
		Use:   "show STATE",
		Short: "Show a state: its platform, lineage, serial, elements and lock",
		Long: `Show the state of apply --state STATE (a path, file:// or s3://BUCKET/KEY):
the platform and client id it belongs to, its lineage (made with it)
and serial (one more at each write), how many elements it records, and
who holds its lock, if a run does: what it runs, on which host and
process, since when, when it last renewed the lock, and its CI job. It
reads the state as the last write left it, and sends nothing to the
platform.`,
		Example: `  wbsctl state show .wbsctl/state
  wbsctl state show 's3://wbs-states/prod/state?region=eu-central-1' -o json --jq .lock`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.State = args[0]
			return cmdutil.Pick(runF, runShow)(cmd.Context(), opts)
		},
	}
}

func runShow(ctx context.Context, o *ShowOptions) error {
	store, err := statestore.Open(ctx, o.State)
	if err != nil {
		return &cmdutil.UsageError{Err: err}
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
	return err
}

// UnlockOptions are the inputs of `wbsctl state unlock`.
type UnlockOptions struct {
	cmdutil.Deps
	State, ID string
}

// NewCmdUnlock returns `wbsctl state unlock`.
func NewCmdUnlock(f *cmdutil.Factory, runF func(context.Context, *UnlockOptions) error) *cobra.Command {
	opts := &UnlockOptions{Deps: f.Deps()}
	return &cobra.Command{
		Use:   "unlock STATE ID",
		Short: "Release the lock of a shared state that a killed run left",
		Long: `Release the lock of the shared state STATE (s3://BUCKET/KEY) that names
ID: the lock of a run that was killed, which a refused run and state show
name. A lock of another id is left as it is, so that a lock taken since
is not released by mistake. A local state's lock ends with its process:
there is nothing to release.`,
		Example: `  wbsctl state show 's3://wbs-states/prod/state?region=eu-central-1'
  wbsctl state unlock 's3://wbs-states/prod/state?region=eu-central-1' 3f9c2a7d41e0b865`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.State, opts.ID = args[0], args[1]
			return cmdutil.Pick(runF, runUnlock)(cmd.Context(), opts)
		},
	}
}

func runUnlock(ctx context.Context, o *UnlockOptions) error {
	store, err := statestore.Open(ctx, o.State)
	if err != nil {
		return &cmdutil.UsageError{Err: err}
	}
	defer store.Close()
	if err := store.Unlock(ctx, o.ID); err != nil {
		return err
	}
	_, err = fmt.Fprintf(o.IO.ErrOut, "released the lock %s of %s\n", output.Escape(o.ID), output.Escape(store.String()))
	return err
}
