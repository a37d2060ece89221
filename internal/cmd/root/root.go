// Package root assembles the wbsctl command tree.
package root

import (
	"errors"
	"strings"

	"github.com/spf13/cobra"
	"github.com/wbsctl/wbsctl/internal/build"
	"github.com/wbsctl/wbsctl/internal/cmd/serve"
	"github.com/wbsctl/wbsctl/internal/cmd/version"
	"github.com/wbsctl/wbsctl/internal/iostreams"
)

// Exit codes of wbsctl.
const (
	ExitOK    = 0
	ExitError = 1
	ExitUsage = 2
)

// NewCmdRoot returns the wbsctl command with every subcommand.
func NewCmdRoot(io *iostreams.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:           "wbsctl <command>",
		Short:         "Work with the WBS elements of the procurement platform",
		Version:       build.Version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	cmd.SetIn(io.In)
	cmd.SetOut(io.Out)
	cmd.SetErr(io.ErrOut)
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &UsageError{Err: err} })
	cmd.AddCommand(serve.NewCmdServe(io, nil), version.NewCmdVersion(io))
	return cmd
}

// UsageError is a command line that wbsctl cannot read.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// ExitCode maps the error of a command to the process's exit code.
func ExitCode(err error) int {
	var usage *UsageError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &usage),
		// cobra reports these as plain errors.
		strings.HasPrefix(err.Error(), "unknown command"),
		strings.HasPrefix(err.Error(), "accepts "),
		strings.HasPrefix(err.Error(), "unknown flag"):
		return ExitUsage
	}
	return ExitError
}
