// Package flagtest drives a command's flag parsing through its runF, for
// the table tests of every command: the options the command would run
// with, or the error that refused the command line.
package flagtest

import (
	"context"
	"errors"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/iostreams"
)

// Parse makes the command with newCmd over test streams, runs it with
// args, and returns the options its runF received (nil when it did not
// run), the streams, and the error.
func Parse[O any](newCmd func(*cmdutil.Factory, func(context.Context, *O) error) *cobra.Command, args ...string) (*O, *iostreams.IOStreams, error) {
	streams, _, _, _ := iostreams.Test()
	var got *O
	cmd := newCmd(cmdutil.New(streams), func(_ context.Context, o *O) error { got = o; return nil })
	cmd.SetArgs(args)
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.Execute()
	return got, streams, err
}

// Refused reports whether the command line was refused before running:
// an error, and no options handed to runF. An argument count error must
// be a usage error (exit 2); a flag error becomes one at the root, which
// tells errors before any command ran from the others.
func Refused[O any](got *O, err error) bool {
	var usage *cmdutil.UsageError
	if err == nil || got != nil {
		return false
	}
	return errors.As(err, &usage) || !strings.Contains(err.Error(), "arg(s)")
}
