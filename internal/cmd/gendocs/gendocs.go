// Package gendocs is the hidden `wbsctl gen-docs` command that writes the
// man pages release archives carry.
package gendocs

import (
	"errors"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// NewCmdGenDocs returns `wbsctl gen-docs --man DIR`.
func NewCmdGenDocs() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:    "gen-docs --man DIR",
		Short:  "Write man pages",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if dir == "" {
				return errors.New("--man is required")
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			root := cmd.Root()
			root.DisableAutoGenTag = true
			return doc.GenManTree(root, &doc.GenManHeader{Title: "WBSCTL", Section: "1", Source: "wbsctl"}, dir)
		},
	}
	cmd.Flags().StringVar(&dir, "man", "", "folder to write the man pages to")
	return cmd
}
