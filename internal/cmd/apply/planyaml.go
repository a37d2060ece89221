package apply

import (
	"bufio"
	"bytes"
	"io"

	"gopkg.in/yaml.v3"

	"github.com/wbsctl/wbsctl/internal/engine"
	"github.com/wbsctl/wbsctl/internal/output"
)

// writePlanYAML writes the plan's document as -o yaml writes a value (the
// YAML of its JSON form, members in order of name), a change at a time:
// yaml.v3 builds a tree of all it encodes, many times the size of a
// large plan. Each change is encoded as an item of a
// top-level list and indented under changes, as the encoder indents a
// nested sequence.
func writePlanYAML(w io.Writer, plan *engine.Plan, showUnchanged bool) error {
	bw := bufio.NewWriter(w)
	first := true
	for ch := range plan.Shown(showUnchanged) {
		b, err := output.YAMLItem(ch)
		if err != nil {
			return err
		}
		if first {
			bw.WriteString("changes:\n")
			first = false
		}
		for line := range bytes.Lines(b) {
			if len(line) > 1 { // an empty line of a block scalar stays empty
				bw.WriteString("    ")
			}
			bw.Write(line)
		}
	}
	if first {
		bw.WriteString("changes: []\n")
	}
	rest, err := output.Generic(plan.DocumentEnd())
	if err != nil {
		return err
	}
	b, err := yaml.Marshal(rest)
	if err != nil {
		return err
	}
	bw.Write(b)
	return bw.Flush()
}
