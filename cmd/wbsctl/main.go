// Command wbsctl is the command-line client of the platform's WBS element
// interface.
package main

import (
	"context"
	"os"

	"github.com/wbsctl/wbsctl/internal/cmd/root"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/iostreams"
)

func main() {
	os.Exit(root.Run(context.Background(), cmdutil.New(iostreams.System()), os.Args[1:]))
}
