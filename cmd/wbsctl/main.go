// Command wbsctl is the command-line client of the platform's WBS element
// interface.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/wbsctl/wbsctl/internal/cmd/root"
	"github.com/wbsctl/wbsctl/internal/iostreams"
)

func main() {
	io := iostreams.System()
	cmd := root.NewCmdRoot(io)
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		fmt.Fprintln(io.ErrOut, "wbsctl:", err)
		os.Exit(root.ExitCode(err))
	}
}
