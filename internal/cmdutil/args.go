package cmdutil

import (
	"context"

	"github.com/spf13/cobra"
)

// The argument validators of the commands: cobra's, whose errors are
// usage errors (exit 2), as a mistyped command line is.

// NoArgs refuses any argument.
func NoArgs(cmd *cobra.Command, args []string) error { return usage(cobra.NoArgs(cmd, args)) }

// ExactArgs wants n arguments.
func ExactArgs(n int) cobra.PositionalArgs { return usageArgs(cobra.ExactArgs(n)) }

// MinimumNArgs wants at least n arguments.
func MinimumNArgs(n int) cobra.PositionalArgs { return usageArgs(cobra.MinimumNArgs(n)) }

// MaximumNArgs wants at most n arguments.
func MaximumNArgs(n int) cobra.PositionalArgs { return usageArgs(cobra.MaximumNArgs(n)) }

// RangeArgs wants between min and max arguments.
func RangeArgs(min, max int) cobra.PositionalArgs { return usageArgs(cobra.RangeArgs(min, max)) }

func usageArgs(v cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error { return usage(v(cmd, args)) }
}

func usage(err error) error {
	if err == nil {
		return nil
	}
	return &UsageError{Err: err}
}

// Pick is a command's runF when a test gives one, else its own run.
func Pick[O any](runF, run func(context.Context, O) error) func(context.Context, O) error {
	if runF != nil {
		return runF
	}
	return run
}
