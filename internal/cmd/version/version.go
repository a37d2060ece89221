// Package version is the wbsctl version command.
package version

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/wbsctl/wbsctl/internal/build"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
)

// Options are the inputs of `wbsctl version`.
type Options struct {
	cmdutil.Deps
}

// NewCmdVersion returns `wbsctl version`.
func NewCmdVersion(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{Deps: f.Deps()}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit and build date",
		Long: `Print the version, commit and build date: a line for people, or with
-o json or yaml (or --jq) a document of version, commit and date.`,
		Example: `  wbsctl version
  wbsctl version --jq .version`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmdutil.Pick(runF, runVersion)(cmd.Context(), opts)
		},
	}
	return f.AddOutputFlags(cmd, cmdutil.RowFormats...)
}

// info is the version as a document.
type info struct {
	Version string `json:"version"`
	Commit  string `json:"commit"`
	Date    string `json:"date"`
}

func runVersion(_ context.Context, o *Options) error {
	b := build.Current()
	if o.Mode().Structured() {
		p, err := o.Printer("VERSION", "COMMIT", "DATE")
		if err != nil {
			return err
		}
		return p.Single(info{b.Version, b.Commit, b.Date}, b.Version, b.Commit, b.Date)
	}
	_, err := fmt.Fprintf(o.IO.Out, "wbsctl %s (commit %s, built %s)\n", b.Version, b.Commit, b.Date)
	return err
}
