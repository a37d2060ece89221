package cmdutil

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/wbsctl/wbsctl/internal/output"
)

// The formats a command's output is written in.
var (
	// RowFormats are those of a command that prints rows of data: a list,
	// or a single result as a row. Plain is tab-separated rows, the
	// default on a pipe.
	RowFormats = []output.Format{output.Table, output.Plain, output.JSON, output.YAML, output.CSV, output.NDJSON}
	// DocumentFormats are those of a command that prints one document:
	// NDJSON writes it on one line.
	DocumentFormats = []output.Format{output.JSON, output.YAML, output.NDJSON}
)

// outputFormatsAnnotation names, on a command, the formats its -o takes.
const outputFormatsAnnotation = "wbsctl/output-formats"

// AddOutputFlags gives cmd the output flags for the formats it writes, as
// gh's AddJSONFlags does: -o with those formats (any other is refused,
// naming them), --no-headers where it writes rows, and --jq and --template
// where it writes JSON. A command without them takes none: its output is
// its own. It returns cmd.
func (f *Factory) AddOutputFlags(cmd *cobra.Command, formats ...output.Format) *cobra.Command {
	g := &f.Global
	names := make([]string, len(formats))
	for i, ft := range formats {
		names[i] = string(ft)
	}
	usage := "output `FORMAT`: " + strings.Join(names, ", ")
	if slices.Contains(formats, output.Table) {
		usage += " (default: a table on a terminal, tab-separated on a pipe)"
	}
	fl := cmd.Flags()
	fl.VarP(&formatFlag{target: &g.Output, command: cmd, formats: formats}, "output", "o", usage)
	if slices.ContainsFunc(formats, func(ft output.Format) bool { return ft == output.Table || ft == output.Plain || ft == output.CSV }) {
		fl.BoolVar(&g.NoHeaders, "no-headers", false, "leave out the header row")
	}
	if slices.Contains(formats, output.JSON) {
		fl.StringVar(&g.JQ, "jq", "", "filter the JSON output with a jq `EXPRESSION`")
		fl.StringVar(&g.Template, "template", "", "render the JSON output with a Go `TEMPLATE`")
	}
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(names, cobra.ShellCompDirectiveNoFileComp))
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[outputFormatsAnnotation] = strings.Join(names, ",")
	return cmd
}

// formatFlag is -o: one of a command's formats.
type formatFlag struct {
	target  *string
	command *cobra.Command
	formats []output.Format
}

func (v *formatFlag) String() string { return *v.target }
func (v *formatFlag) Type() string   { return "format" }

func (v *formatFlag) Set(s string) error {
	if !slices.Contains(v.formats, output.Format(strings.ToLower(s))) {
		names := make([]string, len(v.formats))
		for i, ft := range v.formats {
			names[i] = string(ft)
		}
		return fmt.Errorf("%q is not a format of %s: it writes %s", s, v.command.CommandPath(), strings.Join(names, ", "))
	}
	*v.target = strings.ToLower(s)
	return nil
}
