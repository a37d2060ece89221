package apply

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/wbsctl/wbsctl/internal/engine"
	"github.com/wbsctl/wbsctl/internal/notation"
	"github.com/wbsctl/wbsctl/internal/output"
	"github.com/wbsctl/wbsctl/internal/wbsfile"
	"github.com/wbsctl/wbsctl/sdk"
)

// planView chooses how writePlan shows a plan to a person.
type planView struct {
	// Color marks the kinds of change with ANSI colours, for a terminal.
	Color bool
	// ShowUnchanged lists the unchanged elements too; otherwise they are
	// only counted.
	ShowUnchanged bool
}

const (
	green, yellow, red, dim, reset = "\x1b[32m", "\x1b[33m", "\x1b[31m", "\x1b[2m", "\x1b[0m"
)

var (
	marks  = map[engine.Action]string{engine.ActionCreate: "+", engine.ActionUpdate: "~", engine.ActionDelete: "-", engine.ActionUnchanged: " "}
	colors = map[engine.Action]string{engine.ActionCreate: green, engine.ActionUpdate: yellow, engine.ActionDelete: red, engine.ActionUnchanged: dim}
)

// writePlan writes plan as a reviewable diff: per element the kind of
// change, its code and line, and each field as before → after (a create
// shows what it will hold, a delete what is removed; organizations added
// and removed as +TYPE=CODE and -TYPE=CODE). Text from the file or the
// platform is quoted or escaped, never printed raw.
func writePlan(w io.Writer, plan *engine.Plan, v planView) error {
	paint := func(color, s string) string {
		if !v.Color {
			return s
		}
		return color + s + reset
	}
	// Written as it is made: the diff of a large plan is not held whole.
	b := bufio.NewWriter(w)
	for ch := range plan.Shown(v.ShowUnchanged) {
		fmt.Fprintf(b, "%s %s", paint(colors[ch.Action], marks[ch.Action]+" "+ch.Action.String()), output.Escape(ch.Code))
		if ch.Line > 0 {
			fmt.Fprintf(b, "  (line %d)", ch.Line)
		}
		b.WriteString("\n")
		for _, f := range changeFields(ch, paint) {
			fmt.Fprintf(b, "      %-*s%s\n", fieldWidth, f[0]+":", f[1])
		}
	}
	if len(plan.Unmanaged) > 0 {
		fmt.Fprintf(b, "%s:\n", unmanagedLine(len(plan.Unmanaged)))
		for _, code := range plan.Unmanaged {
			fmt.Fprintf(b, "%s %s\n", paint(dim, "? not in the file"), output.Escape(code))
		}
	}
	return b.Flush()
}

// partialLine says that a plan is partial, and what that means.
func partialLine(unread int) string {
	return fmt.Sprintf("partial plan: the links of %s were not read within --max-duration, so this plan cannot be applied; the state keeps what was read, and the next plan goes on from there", output.Count(unread, "element"))
}

// unmanagedLine says how many elements on the platform the file does not
// name, and what --prune would do with them.
func unmanagedLine(n int) string {
	if n == 1 {
		return "1 element on the platform is not in the file; --prune would delete it"
	}
	return fmt.Sprintf("%d elements on the platform are not in the file; --prune would delete them", n)
}

// planRows are the rows of a plan in a table or CSV: one a change, its
// fields as in the diff, joined by "; ".
func planRows(plan *engine.Plan, showUnchanged bool) (columns []string, rows [][]string, items []engine.Step) {
	plain := func(_, s string) string { return s }
	for ch := range plan.Shown(showUnchanged) {
		var parts []string
		for _, f := range changeFields(ch, plain) {
			parts = append(parts, f[0]+": "+f[1])
		}
		line := ""
		if ch.Line > 0 {
			line = strconv.Itoa(int(ch.Line))
		}
		rows = append(rows, []string{ch.Action.String(), ch.Code, line, strings.Join(parts, "; ")})
		items = append(items, ch)
	}
	return []string{"ACTION", "CODE", "LINE", "CHANGES"}, rows, items
}

// fieldWidth is the width of a field's name and colon in the diff: the
// longest name's, and a space.
var fieldWidth = func() int {
	width := len("organizations:") + 1
	for _, f := range wbsfile.TextFields {
		width = max(width, len(f.Name)+2)
	}
	return width
}()

// changeFields are the fields a change shows, as name and value.
func changeFields(ch engine.Step, paint func(color, s string) string) [][2]string {
	var out [][2]string
	field := func(name, value string) { out = append(out, [2]string{name, value}) }
	switch ch.Action {
	case engine.ActionCreate:
		for _, f := range wbsfile.TextFields {
			field(f.Name, quote(*f.Of(&ch.After.Texts)))
		}
		field("isActive", strconv.FormatBool(ch.After.IsActive))
		if len(ch.After.BusinessOrganizations) > 0 {
			field("organizations", paint(green, orgList("+", ch.After.BusinessOrganizations)))
		}
	case engine.ActionDelete:
		for _, f := range wbsfile.TextFields {
			field(f.Name, quote(*f.Of(&ch.Before.Texts)))
		}
		field("isActive", strconv.FormatBool(ch.Before.IsActive))
		switch orgs := ch.Before.BusinessOrganizations; {
		case orgs == nil:
			// A delete's links are not read: a state shows them.
			field("organizations", "not read (--state records them)")
		case len(orgs) > 0:
			field("organizations", paint(red, orgList("-", orgs)))
		}
	case engine.ActionUpdate:
		for _, f := range wbsfile.TextFields {
			if ch.Fields&engine.TextFieldSet(f) != 0 {
				field(f.Name, quote(*f.Of(&ch.Before.Texts))+" → "+quote(*f.Of(&ch.After.Texts)))
			}
		}
		if ch.Fields&engine.FieldIsActive != 0 {
			field("isActive", strconv.FormatBool(ch.Before.IsActive)+" → "+strconv.FormatBool(ch.After.IsActive))
		}
		if ch.Fields&engine.FieldOrganizations != 0 {
			var parts []string
			if len(ch.Added()) > 0 {
				parts = append(parts, paint(green, orgList("+", ch.Added())))
			}
			if len(ch.Removed()) > 0 {
				parts = append(parts, paint(red, orgList("-", ch.Removed())))
			}
			field("organizations", strings.Join(parts, " "))
		}
	}
	return out
}

func quote(s *string) string {
	if s == nil {
		return "null"
	}
	return output.Quote(*s)
}

func orgList(sign string, orgs []sdk.BusinessOrganization) string {
	parts := make([]string, len(orgs))
	for i, o := range orgs {
		parts[i] = sign + output.Escape(notation.FormatOne(o))
	}
	return strings.Join(parts, " ")
}
