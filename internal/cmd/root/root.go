// Package root assembles the wbsctl command tree.
package root

import (
	"context"
	"errors"

	"github.com/spf13/cobra"
	"github.com/wbsctl/wbsctl/internal/build"
	"github.com/wbsctl/wbsctl/internal/cmd/apply"
	"github.com/wbsctl/wbsctl/internal/cmd/auth"
	"github.com/wbsctl/wbsctl/internal/cmd/element"
	"github.com/wbsctl/wbsctl/internal/cmd/flow"
	"github.com/wbsctl/wbsctl/internal/cmd/gendocs"
	"github.com/wbsctl/wbsctl/internal/cmd/serve"
	"github.com/wbsctl/wbsctl/internal/cmd/version"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
)

// NewCmdRoot returns the wbsctl command with every subcommand.
func NewCmdRoot(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:           "wbsctl <command>",
		Short:         "Work with the WBS elements of the procurement platform",
		Version:       build.Version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	cmd.SetIn(f.IO.In)
	cmd.SetOut(f.IO.Out)
	cmd.SetErr(f.IO.ErrOut)
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &cmdutil.UsageError{Err: err} })
	f.AddGlobalFlags(cmd)
	cmd.AddCommand(
		apply.NewCmdApply(f, nil),
		apply.NewCmdExport(f),
		auth.NewCmdAuth(f),
		element.NewCmdElement(f),
		flow.NewCmdFlow(f),
		gendocs.NewCmdGenDocs(),
		serve.NewCmdServe(f.IO, nil),
		version.NewCmdVersion(f.IO),
		&cobra.Command{Use: "exit-codes", Short: "The exit codes of wbsctl", Long: cmdutil.ExitCodesHelp},
	)
	return cmd
}

// Run executes wbsctl with args, prints any error on the error stream and
// returns the exit code.
func Run(ctx context.Context, f *cmdutil.Factory, args []string) int {
	cmd := NewCmdRoot(f)
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(ctx)
	var pending *cmdutil.PendingError
	if err != nil && !errors.As(err, &pending) {
		cmdutil.PrintError(f.IO.ErrOut, err, f.Global.Output == "json")
	}
	return cmdutil.ExitCode(err)
}
