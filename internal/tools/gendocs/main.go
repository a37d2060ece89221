// Command gendocs writes the man pages of wbsctl into a folder, for the
// release archives and packages:
//
//	go run ./internal/tools/gendocs DIR
//
// It is a program of its own so that the wbsctl binary does not link the
// Markdown and man page renderers, whose package initialisation would slow
// every start of wbsctl.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra/doc"
	"github.com/wbsctl/wbsctl/internal/cmd/root"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/iostreams"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gendocs DIR")
		os.Exit(2)
	}
	dir := os.Args[1]
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	cmd := root.NewCmdRoot(cmdutil.New(iostreams.System()))
	cmd.DisableAutoGenTag = true
	if err := doc.GenManTree(cmd, &doc.GenManHeader{Title: "WBSCTL", Section: "1", Source: "wbsctl"}, dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
