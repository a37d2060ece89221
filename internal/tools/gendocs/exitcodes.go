package main

import (
	"fmt"
	"strings"

	"github.com/wbsctl/wbsctl/internal/cmdutil"
)

// exitCodesFile is where the exit-codes page goes, from the directory of
// the command reference: docs/exit-codes.md beside docs/cli.
const exitCodesFile = "../exit-codes.md"

// exitCodesPage is docs/exit-codes.md: the rows of cmdutil.ExitCodes as a
// Markdown table, between the page's introduction and its closing line.
func exitCodesPage() []byte {
	var b strings.Builder
	b.WriteString("# Exit codes\n\n" +
		"What each exit code of wbsctl means, for scripts that branch on it.\n\n" +
		"| code | meaning |\n" +
		"|---|---|\n")
	for _, r := range cmdutil.ExitCodes {
		fmt.Fprintf(&b, "| %s | %s |\n", r.Label(), strings.ReplaceAll(r.Meaning, "|", `\|`))
	}
	b.WriteString("\n`wbsctl help exit-codes` prints the same.\n")
	return []byte(b.String())
}
