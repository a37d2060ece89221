// Command gendocs writes the documentation generated from wbsctl's
// commands: the man pages cobra makes, for the release archives and
// packages, or the command reference in Markdown, docs/cli, and with it
// docs/exit-codes.md, made from cmdutil.ExitCodes and written beside DIR
// (DIR/../exit-codes.md):
//
//	go run ./internal/tools/gendocs DIR                 # man pages
//	go run ./internal/tools/gendocs -markdown docs/cli  # docs/cli, docs/exit-codes.md
//
// It is a program of its own so that the wbsctl binary does not link the
// Markdown and man page renderers, whose package initialisation would slow
// every start of wbsctl.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra/doc"
	"github.com/wbsctl/wbsctl/internal/cmd/root"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/iostreams"
)

func main() {
	args := os.Args[1:]
	markdown := len(args) == 2 && args[0] == "-markdown"
	if markdown {
		args = args[1:]
	}
	if len(args) != 1 {
		fmt.Fprintln(os.Stderr, "usage: gendocs [-markdown] DIR")
		os.Exit(2)
	}
	if err := generate(args[0], markdown); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// generate writes the man pages, or the Markdown reference, into dir;
// with the Markdown reference the exit-codes page, beside dir.
func generate(dir string, markdown bool) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	cmd := root.NewCmdRoot(cmdutil.New(iostreams.System()))
	cmd.DisableAutoGenTag = true
	if markdown {
		if err := doc.GenMarkdownTree(cmd, dir); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, exitCodesFile), exitCodesPage(), 0o644)
	}
	return doc.GenManTree(cmd, &doc.GenManHeader{Title: "WBSCTL", Section: "1", Source: "wbsctl"}, dir)
}
