// Package version is the wbsctl version command.
package version

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/wbsctl/wbsctl/internal/build"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/iostreams"
)

// NewCmdVersion returns `wbsctl version`.
func NewCmdVersion(io *iostreams.IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit and build date",
		Args:  cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := fmt.Fprintf(io.Out, "wbsctl %s (commit %s, built %s)\n", build.Version, build.Commit, build.Date)
			return err
		},
	}
}
