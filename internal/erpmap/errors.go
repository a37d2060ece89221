package erpmap

import (
	"strconv"
	"strings"

	"github.com/wbsctl/wbsctl/sdk"
)

// MapProblem is one thing wrong with a map, or with a map against an
// export's header: found before any row is read.
type MapProblem struct {
	// File and Line are the map's file and the line of the rule (0: the
	// whole map).
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
	// Rule is the map's key the problem is of ("description",
	// "isActive.map", "header"), "" for the file itself.
	Rule string `json:"rule,omitempty"`
	// Place is where in the export the problem is ("Daten row 4",
	// "Daten!A4:B4", "line 3"), "" when it is the map's alone. The
	// message says it too.
	Place   string `json:"place,omitempty"`
	Message string `json:"message"`
}

// String is the problem as a person reads it: "sap.wbsmap.yaml:5:
// description: unknown name Bezeichnug in the header, Daten row 4 (did
// you mean Bezeichnung?)".
func (p MapProblem) String() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		b.WriteString(":" + strconv.Itoa(p.Line))
	}
	b.WriteString(": ")
	if p.Rule != "" {
		b.WriteString(p.Rule + ": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// Error is a map refused: every problem found in the map, or in the map
// against the export's header, before a row was read. It matches
// sdk.ErrValidation, a local check that failed before sending (exit 5).
type Error struct {
	Problems []MapProblem
}

func (e *Error) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// Is makes an *Error match sdk.ErrValidation.
func (e *Error) Is(target error) bool { return target == sdk.ErrValidation }
