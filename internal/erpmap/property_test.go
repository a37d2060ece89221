package erpmap

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/internal/wbsfile"
	"pgregory.net/rapid"
)

// Over map files and rows of every kind, reading never panics; a map
// refused names the map's line in each problem; every problem of a row
// names the row (its line, and its cell in a workbook) and the map's
// line; and the counts and records keep wbsfile's contract.
func TestReadAnyMapAnyRows(t *testing.T) {
	columns := []string{"A", "B c", "Kst", "Status", "Werk", "a"}
	cells := []string{"", "P-1", "P-2", "x", "0000004711", "REL  TECO", "CLSD", "TRUE", "nein", " 1000 ", "\u200bP", strings.Repeat("y", 101), "a\tb"}
	exprs := []string{`trim(A)`, `concat(A, $env["B c"])`, "`B c` == A", `A == "P-1"`, `hasWord(Status, "REL")`, `upper(Kst`, `Nope == "1"`, `A in ["P-1", "x"]`,
		`alpha(Kst)`, `$env["B c"]`, `!`, `A && Werk`, `""`, `true`}
	rapid.Check(t, func(t *rapid.T) {
		pick := func(label string, from []string) string { return rapid.SampledFrom(from).Draw(t, label) }
		var m strings.Builder
		m.WriteString("version: 1\n")
		if rapid.Bool().Draw(t, "find") {
			fmt.Fprintf(&m, "header: {find: [%s]}\n", quoteYAML(pick("findName", columns)))
		} else {
			fmt.Fprintf(&m, "header: {row: %d}\n", rapid.IntRange(1, 4).Draw(t, "row"))
		}
		if rapid.Bool().Draw(t, "where") {
			fmt.Fprintf(&m, "where: %s\n", yamlSingle(pick("whereExpr", exprs)))
		}
		textRule := func(label string) string {
			switch rapid.IntRange(0, 3).Draw(t, label) {
			case 0:
				return quoteYAML(pick(label+"Column", columns))
			case 1:
				return "{expr: " + yamlSingle(pick(label+"Expr", exprs)) + "}"
			case 2:
				return "{column: " + quoteYAML(pick(label+"Column", columns)) + ", alpha: true}"
			}
			return "{value: " + quoteYAML(pick(label+"Value", cells)) + "}"
		}
		fmt.Fprintf(&m, "wbsElementCode: %s\n", textRule("code"))
		if rapid.Bool().Draw(t, "description") {
			fmt.Fprintf(&m, "description: %s\n", textRule("description"))
		}
		switch rapid.IntRange(0, 3).Draw(t, "isActive") {
		case 1:
			fmt.Fprintf(&m, "isActive: %s\n", quoteYAML(pick("activeColumn", columns)))
		case 2:
			fmt.Fprintf(&m, "isActive:\n  column: %s\n  words: %v\n  map: {TECO: false, REL: true}\n  else: %s\n",
				quoteYAML(pick("activeColumn", columns)), rapid.Bool().Draw(t, "words"), pick("else", []string{"error", "true", "false"}))
		case 3:
			fmt.Fprintf(&m, "isActive: {expr: %s}\n", yamlSingle(pick("activeExpr", exprs)))
		}
		if rapid.Bool().Draw(t, "organizations") {
			m.WriteString("organizations:\n")
			for i := range rapid.IntRange(0, 3).Draw(t, "orgs") {
				fmt.Fprintf(&m, "  type%d: %s\n", i, textRule(fmt.Sprint("org", i)))
			}
		}
		if rapid.Bool().Draw(t, "garbage") {
			m.WriteString(rapid.SampledFrom([]string{"foo: 1\n", "description: [\n", "  - x\n", "isActive: {map: {}}\n", "version: 1\n"}).Draw(t, "garbageLine"))
		}

		mp, err := Parse("m.yaml", []byte(m.String()))
		if err != nil {
			var me *Error
			if !errors.As(err, &me) || len(me.Problems) == 0 {
				t.Fatalf("not an *Error: %v", err)
			}
			for _, p := range me.Problems {
				if p.Line <= 0 {
					t.Fatalf("a problem without the map's line: %s\n%s", p, m.String())
				}
			}
			return
		}

		workbook := rapid.Bool().Draw(t, "workbook")
		var rows []Row
		for i := range rapid.IntRange(0, 8).Draw(t, "rows") {
			var row Row
			row.Line = i + 1
			if rapid.IntRange(0, 20).Draw(t, "unreadable") == 0 {
				row.Err = errors.New("a quote left open")
			} else {
				for range rapid.IntRange(0, 7).Draw(t, "cells") {
					pool := cells
					if i < 2 {
						pool = append(columns, cells...)
					}
					row.Cells = append(row.Cells, pick("cell", pool))
				}
			}
			rows = append(rows, row)
		}
		tab := &Table{Rows: func(yield func(Row) bool) {
			for _, r := range rows {
				if !yield(r) {
					return
				}
			}
		}, ExactCells: !workbook && rapid.Bool().Draw(t, "exact")}
		if workbook {
			tab.Cell = func(line, col int) string {
				if col < 0 {
					return fmt.Sprintf("Daten row %d", line)
				}
				return fmt.Sprintf("Daten!%c%d", 'A'+col, line)
			}
		}
		res, err := mp.Read(tab, wbsfile.Checks{})
		if err != nil {
			var me *Error
			if !errors.As(err, &me) || len(me.Problems) == 0 {
				t.Fatalf("not an *Error: %v", err)
			}
			for _, p := range me.Problems {
				if p.Line <= 0 || p.File != "m.yaml" {
					t.Fatalf("a problem without the map's line: %s\n%s", p, m.String())
				}
			}
			return
		}
		for _, p := range res.File.Problems {
			if p.Line <= 0 || workbook && !strings.HasPrefix(p.Cell, "Daten") || !workbook && p.Cell != "" {
				t.Fatalf("a problem without its row: %+v", p)
			}
			if !strings.Contains(p.Message, "m.yaml:") {
				t.Fatalf("a problem without the map's line: %s\n%s", p, m.String())
			}
		}
		c := res.Counts
		if c.Rows != c.Filtered+c.Mapped+c.Invalid || c.Elements != len(res.File.Records) {
			t.Fatalf("counts %+v, %d records", c, len(res.File.Records))
		}
		invalid := map[string]bool{}
		for _, code := range res.File.InvalidCodes {
			invalid[code] = true
		}
		seen := map[string]bool{}
		for _, r := range res.File.Records {
			if invalid[r.Code] || seen[r.Code] || r.Code == "" {
				t.Fatalf("record %q kept: invalid %v, twice %v", r.Code, invalid[r.Code], seen[r.Code])
			}
			seen[r.Code] = true
		}
		// Each problem leaves out its code, or the row of its line.
		leftOut := map[int]bool{}
		for _, r := range res.File.Invalid {
			leftOut[int(r.Line)] = true
		}
		for _, p := range res.File.Problems {
			switch {
			case p.Code != "" && !invalid[p.Code]:
				t.Fatalf("%s: its code is not named invalid", p)
			case p.Code == "" && !leftOut[p.Line] && !strings.HasPrefix(p.Message, "the export holds no row"):
				t.Fatalf("%s: no row left out there: %v", p, res.File.Invalid)
			}
		}
	})
}

// quoteYAML is s in YAML's double quotes.
func quoteYAML(s string) string { return fmt.Sprintf("%q", s) }

// Parse takes any text: a map file of YAML's pieces in any order is read
// or refused, never a panic, and a refusal names a line of it.
func TestParseAnyText(t *testing.T) {
	pieces := []string{"version: 1\n", "header: ", "{find: [A, B]}", "{row: 2}", "wbsElementCode: ", "A\n", "{expr: 'trim(A)'}\n",
		"isActive:\n", "  column: S\n", "  map: {X: true}\n", "  words: true\n", "  else: ", "error\n", "organizations:\n",
		"  plant: W\n", "- ", "[", "]", "{", "}", ": ", "&a ", "*a ", "<<: ", "'", "\"", "\t", "  ", "\n", "#", "!!str ", "---\n", "~", "\u00e4"}
	rapid.Check(t, func(t *rapid.T) {
		var b strings.Builder
		for _, p := range rapid.SliceOfN(rapid.SampledFrom(pieces), 0, 30).Draw(t, "pieces") {
			b.WriteString(p)
		}
		m, err := Parse("m.yaml", []byte(b.String()))
		if err == nil {
			if m.code.column == "" && m.code.expr == nil {
				t.Fatalf("a map without a code rule:\n%s", b.String())
			}
			return
		}
		var me *Error
		if !errors.As(err, &me) || len(me.Problems) == 0 {
			t.Fatalf("not an *Error: %v", err)
		}
		for _, p := range me.Problems {
			if p.Line <= 0 && !strings.Contains(p.Message, "larger than") {
				t.Fatalf("a problem without a line: %s\n%q", p, b.String())
			}
		}
	})
}
