// Package state is `wbsctl state`: a look at apply's state file, who
// holds its lock, without a credential or a request.
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
)

// NewCmdState returns `wbsctl state` and its subcommands.
func NewCmdState(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "state",
		Short: "Look at the state file of apply --state",
		Long: `Look at the state file that apply --state keeps: the platform it belongs
to, its lineage and serial, how many elements it records, and who holds
its lock.`,
	}
	cmd.AddCommand(NewCmdShow(f, nil))
	return cmd
}

// ShowOptions are the inputs of `wbsctl state show`.
type ShowOptions struct {
	cmdutil.Deps
	Path string
}

// NewCmdShow returns `wbsctl state show`.
func NewCmdShow(f *cmdutil.Factory, runF func(context.Context, *ShowOptions) error) *cobra.Command {
	opts := &ShowOptions{Deps: f.Deps()}
	return &cobra.Command{
		Use:   "show FILE",
		Short: "Show a state file: its platform, lineage, serial, elements and lock",
		Long: `Show the state file of apply --state: the platform and client id it
belongs to, its lineage (made with it) and serial (one more at each
write), how many elements it records, and who holds its lock, if a run
does: what it runs, on which host and process, since when, and its CI
job. It reads the file as the last write left it, and sends nothing.`,
		Example: `  wbsctl state show .wbsctl/state
  wbsctl state show .wbsctl/state -o json --jq .lock`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Path = args[0]
			return cmdutil.Pick(runF, runShow)(cmd.Context(), opts)
		},
	}
}

func runShow(_ context.Context, o *ShowOptions) error {
	sum, err := engine.InspectState(o.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: no state file there (apply --state FILE writes one)", o.Path)
	}
	if err != nil {
		return err
	}
	lock := "not held"
	if sum.Lock != nil {
		lock = "held by " + sum.Lock.String()
	}
	if o.Mode().Structured() {
		p, err := o.Printer("PATH", "BASE URL", "CLIENT ID", "LINEAGE", "SERIAL", "ELEMENTS", "LOCK")
		if err != nil {
			return err
		}
		return p.Single(sum, sum.Path, sum.BaseURL, sum.ClientID, sum.Lineage, strconv.FormatInt(sum.Serial, 10), strconv.Itoa(sum.Elements), lock)
	}
	_, err = fmt.Fprintf(o.IO.Out, "state:    %s\nplatform: %s as %s\nlineage:  %s\nserial:   %d\nelements: %d\nlock:     %s\n",
		output.Escape(sum.Path), output.Escape(sum.BaseURL), output.Escape(sum.ClientID), output.Escape(sum.Lineage), sum.Serial, sum.Elements, output.Escape(lock))
	return err
}
