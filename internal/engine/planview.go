package engine

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/wbsctl/wbsctl/internal/notation"
	"github.com/wbsctl/wbsctl/internal/output"
	"github.com/wbsctl/wbsctl/sdk"
)

// PlanFormatVersion is the version of the machine-readable plan; it
// changes only when a member changes meaning or goes away.
const PlanFormatVersion = 1

// PlanView chooses how WritePlan shows a plan to a person.
type PlanView struct {
	// Color marks the kinds of change with ANSI colours, for a terminal.
	Color bool
	// ShowUnchanged lists the unchanged elements too; otherwise they are
	// only counted.
	ShowUnchanged bool
}

const (
	green, yellow, red, dim, reset = "\x1b[32m", "\x1b[33m", "\x1b[31m", "\x1b[2m", "\x1b[0m"
)

// WritePlan writes plan as a reviewable diff: per element the kind of
// change, its code and line, and each field as before → after (a create
// shows what it will hold, a delete what is removed; organizations added
// and removed as +TYPE=CODE and -TYPE=CODE). Text from the file or the
// platform is quoted or escaped, never printed raw.
func WritePlan(w io.Writer, plan *Plan, v PlanView) error {
	paint := func(color, s string) string {
		if !v.Color {
			return s
		}
		return color + s + reset
	}
	var b strings.Builder
	for _, ch := range plan.Changes {
		if ch.Action == ActionUnchanged && !v.ShowUnchanged {
			continue
		}
		mark, color := map[Action]string{ActionCreate: "+", ActionUpdate: "~", ActionDelete: "-", ActionUnchanged: " "}[ch.Action], ""
		switch ch.Action {
		case ActionCreate:
			color = green
		case ActionUpdate:
			color = yellow
		case ActionDelete:
			color = red
		case ActionUnchanged:
			color = dim
		}
		fmt.Fprintf(&b, "%s %s", paint(color, mark+" "+string(ch.Action)), output.Escape(ch.Code))
		if ch.Line > 0 {
			fmt.Fprintf(&b, "  (line %d)", ch.Line)
		}
		b.WriteString("\n")
		field := func(name, value string) { fmt.Fprintf(&b, "      %-15s%s\n", name+":", value) }
		switch ch.Action {
		case ActionCreate:
			field("description", quote(ch.After.Description))
			field("isActive", strconv.FormatBool(ch.After.IsActive))
			if len(ch.After.BusinessOrganizations) > 0 {
				field("organizations", paint(green, orgList("+", ch.After.BusinessOrganizations)))
			}
		case ActionDelete:
			field("description", quote(ch.Before.Description))
			field("isActive", strconv.FormatBool(ch.Before.IsActive))
		case ActionUpdate:
			for _, f := range ch.Fields {
				switch f {
				case "description":
					field("description", quote(ch.Before.Description)+" → "+quote(ch.After.Description))
				case "isActive":
					field("isActive", strconv.FormatBool(ch.Before.IsActive)+" → "+strconv.FormatBool(ch.After.IsActive))
				case "businessOrganizations":
					var parts []string
					if len(ch.AddOrganizations) > 0 {
						parts = append(parts, paint(green, orgList("+", ch.AddOrganizations)))
					}
					if len(ch.RemoveOrganizations) > 0 {
						parts = append(parts, paint(red, orgList("-", ch.RemoveOrganizations)))
					}
					field("organizations", strings.Join(parts, " "))
				}
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// PlanDocument is the machine-readable plan of -o json, yaml and ndjson.
type PlanDocument struct {
	FormatVersion int            `json:"formatVersion" yaml:"formatVersion"`
	Changes       []Change       `json:"changes" yaml:"changes"`
	Summary       map[Action]int `json:"summary" yaml:"summary"`
}

// Document returns the machine-readable form of plan: every change but the
// unchanged ones (unless showUnchanged), with a before and an after per
// step, and the counts of every action.
func (p *Plan) Document(showUnchanged bool) PlanDocument {
	doc := PlanDocument{FormatVersion: PlanFormatVersion, Changes: []Change{}, Summary: p.Counts()}
	for _, ch := range p.Changes {
		if ch.Action != ActionUnchanged || showUnchanged {
			doc.Changes = append(doc.Changes, ch)
		}
	}
	for _, a := range []Action{ActionCreate, ActionUpdate, ActionUnchanged, ActionDelete} {
		if _, ok := doc.Summary[a]; !ok {
			doc.Summary[a] = 0 // every action is in the summary, counted or not
		}
	}
	return doc
}

func quote(s *string) string {
	if s == nil {
		return "null"
	}
	return strconv.Quote(*s)
}

func orgList(sign string, orgs []sdk.BusinessOrganization) string {
	parts := make([]string, len(orgs))
	for i, o := range orgs {
		parts[i] = sign + output.Escape(notation.FormatOne(o))
	}
	return strings.Join(parts, " ")
}
