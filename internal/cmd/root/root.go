// Package root assembles the wbsctl command tree.
package root

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/wbsctl/wbsctl/internal/build"
	"github.com/wbsctl/wbsctl/internal/cmd/api"
	"github.com/wbsctl/wbsctl/internal/cmd/apply"
	"github.com/wbsctl/wbsctl/internal/cmd/auth"
	"github.com/wbsctl/wbsctl/internal/cmd/element"
	"github.com/wbsctl/wbsctl/internal/cmd/export"
	"github.com/wbsctl/wbsctl/internal/cmd/flow"
	"github.com/wbsctl/wbsctl/internal/cmd/mapcmd"
	"github.com/wbsctl/wbsctl/internal/cmd/schema"
	"github.com/wbsctl/wbsctl/internal/cmd/serve"
	"github.com/wbsctl/wbsctl/internal/cmd/state"
	"github.com/wbsctl/wbsctl/internal/cmd/version"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/output"
)

// NewCmdRoot returns the wbsctl command with every subcommand.
func NewCmdRoot(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:           "wbsctl <command>",
		Short:         "Work with the WBS elements of the procurement platform",
		Version:       build.Current().Version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	cmd.SetIn(f.IO.In)
	cmd.SetOut(f.IO.Out)
	cmd.SetErr(f.IO.ErrOut)
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &cmdutil.UsageError{Err: err} })
	f.AddGlobalFlags(cmd)
	cmd.AddCommand(
		api.NewCmdAPI(f, nil),
		apply.NewCmdApply(f, nil),
		export.NewCmdExport(f, nil),
		auth.NewCmdAuth(f),
		element.NewCmdElement(f),
		flow.NewCmdFlow(f),
		mapcmd.NewCmdMap(f),
		schema.NewCmdSchema(f, nil),
		serve.NewCmdServe(f, nil),
		state.NewCmdState(f),
		version.NewCmdVersion(f, nil),
		&cobra.Command{Use: "exit-codes", Short: "The exit codes of wbsctl", Long: cmdutil.ExitCodesHelp},
	)
	// Help topics in the column of the commands, not by their whole path.
	cmd.SetUsageTemplate(strings.Replace(cmd.UsageTemplate(),
		"{{rpad .CommandPath .CommandPathPadding}}", "{{rpad .Name .NamePadding}}", 1))
	cmd.SetHelpCommand(newCmdHelp())
	cmd.InitDefaultCompletionCmd()
	refuseUnknownSubcommands(cmd)
	return cmd
}

// refuseUnknownSubcommands makes every command below the root that has
// subcommands answer a word it does not know with a usage error, as the
// root does: cobra would print the help and succeed, and a script with a
// typo would pass. Alone, such a command prints its help.
func refuseUnknownSubcommands(root *cobra.Command) {
	for _, c := range root.Commands() {
		refuseUnknownSubcommands(c)
		if !c.HasSubCommands() || c.Runnable() {
			continue
		}
		c.Args = cobra.ArbitraryArgs
		c.RunE = func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return c.Help()
			}
			return unknownCommand(c, args[0])
		}
	}
}

// unknownCommand is the usage error for a word that names no subcommand
// of c, with cobra's suggestions of close ones.
func unknownCommand(c *cobra.Command, word string) error {
	msg := fmt.Sprintf("unknown command %q for %q", word, c.CommandPath())
	if c.SuggestionsMinimumDistance <= 0 {
		c.SuggestionsMinimumDistance = 2 // cobra's default, which only the root gets
	}
	if s := c.SuggestionsFor(word); len(s) > 0 {
		msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t")
	}
	return &cmdutil.UsageError{Err: errors.New(msg)}
}

// newCmdHelp is `wbsctl help [COMMAND]`, which refuses a topic it does
// not know instead of succeeding.
func newCmdHelp() *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			var names []string
			for _, sub := range c.Root().Commands() {
				if sub.IsAvailableCommand() && strings.HasPrefix(sub.Name(), toComplete) {
					names = append(names, sub.Name())
				}
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			target, rest, err := c.Root().Find(args)
			switch {
			case err != nil || target == nil:
				return unknownCommand(c.Root(), args[len(args)-1])
			case len(rest) > 0:
				return unknownCommand(target, rest[0])
			}
			return target.Help()
		},
	}
}

// Run executes wbsctl with args, prints any error on the error stream and
// returns the exit code.
func Run(ctx context.Context, f *cmdutil.Factory, args []string) int {
	cmd := NewCmdRoot(f)
	cmd.SetArgs(args)
	ran := false
	markRun(cmd, &ran)
	err := cmd.ExecuteContext(ctx)
	// A fence around data that a GitHub Actions runner reads ends with
	// the command (iostreams.FencedOut).
	if ferr := f.IO.EndFence(); err == nil {
		err = ferr
	}
	if err != nil && !ran {
		// Cobra refused the command line before any command ran: an
		// unknown command or flag, a wrong number of arguments, a
		// required flag left out.
		var usage *cmdutil.UsageError
		if !errors.As(err, &usage) {
			err = &cmdutil.UsageError{Err: err}
		}
	}
	var pending *cmdutil.PendingError
	if err != nil && !errors.As(err, &pending) {
		w := f.IO.ErrOut
		if f.IO.IsStderrTTY() {
			// A JSON error escapes C0 controls only: on a terminal
			// the rest is escaped too, and the JSON reads the same.
			w = output.TerminalWriter(w)
		}
		cmdutil.PrintError(w, err, f.Global.Output == "json")
	}
	return cmdutil.ExitCode(err)
}

// markRun makes every command of the tree set *ran when its RunE starts,
// so that an error can be told a command's own from cobra's refusal of the
// command line, and gives the commands that do not handle signals
// themselves a context that SIGINT and SIGTERM end.
func markRun(c *cobra.Command, ran *bool) {
	if run := c.RunE; run != nil {
		c.RunE = func(c *cobra.Command, args []string) error {
			*ran = true
			if cmdutil.HandlesSignals(c) {
				return run(c, args)
			}
			// A signal ends the command's requests, and its error says
			// whether a write may have been carried out.
			ctx, stop := cmdutil.SignalContext(c.Context())
			defer stop()
			c.SetContext(ctx)
			return cmdutil.Interruption(ctx, run(c, args))
		}
	}
	for _, sub := range c.Commands() {
		markRun(sub, ran)
	}
}
