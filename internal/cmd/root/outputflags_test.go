package root_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/wbsctl/wbsctl/internal/cmd/root"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/iostreams"
)

// Output flags belong to the commands that honour them: a command offers
// -o with the formats it writes and refuses any other naming them, --jq
// and --template only where it writes JSON, and a command whose output is
// its own offers none.
func TestOutputFlagsBelongToTheirCommands(t *testing.T) {
	io, _, _, _ := iostreams.Test()
	f := cmdutil.New(io)
	want := map[string][]string{
		"wbsctl apply":          {"table", "plain", "json", "yaml", "csv", "ndjson", "markdown"},
		"wbsctl element list":   {"table", "plain", "json", "yaml", "csv", "ndjson"},
		"wbsctl serve":          {"json", "yaml", "ndjson"},
		"wbsctl schema":         {"json", "yaml", "ndjson"},
		"wbsctl auth status":    {"table", "plain", "json", "yaml", "csv", "ndjson"},
		"wbsctl auth token":     nil,
		"wbsctl auth logout":    nil,
		"wbsctl auth login":     nil,
		"wbsctl state unlock":   nil,
		"wbsctl completion zsh": nil,
	}
	var walk func(c *cobra.Command)
	seen := map[string]bool{}
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		if !c.Runnable() {
			return
		}
		path := c.CommandPath()
		o := c.Flags().Lookup("output")
		if path == "wbsctl export" {
			// export's -o is the old name of --format, hidden.
			if o == nil || !o.Hidden {
				t.Errorf("%s: -o is not the hidden old name of --format", path)
			}
			return
		}
		var formats []string
		if o != nil {
			formats = strings.Split(c.Annotations["wbsctl/output-formats"], ",")
			for _, ft := range formats {
				if !strings.Contains(o.Usage, ft) {
					t.Errorf("%s -o does not say it writes %s: %q", path, ft, o.Usage)
				}
			}
		}
		if w, ok := want[path]; ok {
			seen[path] = true
			if !slices.Equal(formats, w) {
				t.Errorf("%s -o takes %q, want %q", path, formats, w)
			}
		}
		hasJQ := c.Flags().Lookup("jq") != nil && c.Flags().Lookup("template") != nil
		if hasJQ != slices.Contains(formats, "json") {
			t.Errorf("%s: --jq and --template offered %v, writes JSON %v", path, hasJQ, slices.Contains(formats, "json"))
		}
		if o == nil {
			return
		}
		for _, other := range []string{"markdown", "xml", "json", "table"} {
			if slices.Contains(formats, other) {
				continue
			}
			args := append(strings.Fields(strings.TrimPrefix(path, "wbsctl ")), "-o", other)
			io, _, _, errOut := iostreams.Test()
			code := root.Run(context.Background(), cmdutil.New(io), args)
			if code != cmdutil.ExitUsage || !strings.Contains(errOut.String(), "it writes "+strings.Join(formats, ", ")) {
				t.Errorf("wbsctl %s: exit %d, want %d naming the formats it writes: %s", strings.Join(args, " "), code, cmdutil.ExitUsage, errOut)
			}
		}
	}
	walk(root.NewCmdRoot(f))
	for path := range want {
		if !seen[path] && !strings.HasPrefix(path, "wbsctl completion") {
			t.Errorf("%s was not found", path)
		}
	}
}
