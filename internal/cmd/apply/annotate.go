package apply

import (
	"strconv"
	"strings"

	"github.com/wbsctl/wbsctl/internal/engine"
	"github.com/wbsctl/wbsctl/internal/output"
)

// workflowCommand is p as a GitHub Actions workflow command, which the
// runner shows as an error on the file's own line:
//
//	::error file=wbs.csv,line=12,title=wbsctl apply::line 12 (code "P-1"): description: …
//
// The message and the properties are escaped as the actions toolkit
// escapes them (%, CR and LF; in a property also : and ,), so that text of
// the file can neither end the command nor start another; controls are
// escaped as on a terminal first.
func workflowCommand(file string, p engine.Problem) string {
	props := []string{"file=" + escapeProperty(file)}
	if p.Line > 0 {
		props = append(props, "line="+strconv.Itoa(p.Line))
	}
	props = append(props, "title="+escapeProperty("wbsctl apply"))
	return "::error " + strings.Join(props, ",") + "::" + escapeData(output.Escape(p.String()))
}

// escapeData escapes a workflow command's message.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command's property value.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
