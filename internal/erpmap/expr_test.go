package erpmap

import (
	"strings"
	"testing"

	"github.com/expr-lang/expr/vm"
	"github.com/wbsctl/wbsctl/internal/wbsfile"
)

// eval runs src, of kind want, on row, whose columns header names.
func eval(t *testing.T, src string, want kind, header, row []string) (*program, error) {
	t.Helper()
	e, err := parseExpr(src, want)
	if err != nil {
		return nil, err
	}
	column := map[string]int{}
	for i, h := range header {
		column[h] = i
	}
	prog, err := e.compile(column)
	if err != nil {
		return nil, err
	}
	env := map[string]any{}
	for _, n := range e.names {
		env[n] = row[column[n]]
	}
	p := &program{prog: prog}
	var m vm.VM
	return p, p.run(&m, env)
}

// Expressions give what they say, reading the cells of a row by their
// column's name.
func TestExpressions(t *testing.T) {
	header := []string{"Buchungskreis", "Bezeichnung", "PSP-Element", "Systemstatus", "Job No.", "in"}
	row := []string{"1000", "  Pumpe  ", "P-100.01", "REL  AUC  SETC", "J-7", "x"}
	texts := []struct{ src, want string }{
		{`trim(Bezeichnung)`, "Pumpe"},
		{`upper(trim(Bezeichnung))`, "PUMPE"},
		{`lower("ABC")`, "abc"},
		{`$env["PSP-Element"]`, "P-100.01"},
		{`$env[ 'Job No.' ]`, "J-7"},
		{`concat($env["Job No."], "-", $env["PSP-Element"])`, "J-7-P-100.01"},
		{`$env["Job No."] + "-" + Buchungskreis`, "J-7-1000"},
		{`replace($env["PSP-Element"], ".", "/")`, "P-100/01"},
		{`alpha("0000004711")`, "4711"},
		{`alpha("00A1")`, "00A1"},
		{`"a\"b\\c"`, `a"b\c`},
	}
	for _, tt := range texts {
		p, err := eval(t, tt.src, kindText, header, row)
		if err != nil {
			t.Errorf("%s: %v", tt.src, err)
			continue
		}
		if p.text != tt.want {
			t.Errorf("%s = %q, want %q", tt.src, p.text, tt.want)
		}
	}
	bools := []struct {
		src  string
		want bool
	}{
		{`Buchungskreis == "1000"`, true},
		{`Buchungskreis != "1000"`, false},
		{`Buchungskreis in ["2000", "1000"]`, true},
		{`Buchungskreis in []`, false},
		{`hasWord(Systemstatus, "AUC") && !hasWord(Systemstatus, "AU")`, true},
		{`hasWord(Systemstatus, "SETC") and not hasWord(Systemstatus, "TECO")`, true},
		{`Bezeichnung contains "ump" || false`, true},
		{`($env["PSP-Element"] startsWith "P-1") == (Bezeichnung endsWith "x")`, false},
		{`(Buchungskreis == "2000" || $env["in"] == "x") && true`, true},
		{`!(Buchungskreis == "1000")`, false},
		{`let s = trim(Bezeichnung); s == "Pumpe"`, true},
	}
	for _, tt := range bools {
		p, err := eval(t, tt.src, kindBool, header, row)
		if err != nil {
			t.Errorf("%s: %v", tt.src, err)
			continue
		}
		if p.b != tt.want {
			t.Errorf("%s = %v, want %v", tt.src, p.b, tt.want)
		}
	}
}

// What expr-lang would read otherwise than a map's author meant is
// refused when the map is read.
func TestExpressionRefusals(t *testing.T) {
	for _, tt := range []struct {
		src  string
		want kind
		msg  string
	}{
		{"`PSP-Element`", kindText, "`PSP-Element` at character 1 is a text in expr-lang, not a column: write $env[\"PSP-Element\"]"},
		{"`Company Code` == \"1000\"", kindBool, "`Company Code` at character 1 is a text in expr-lang, not a column"},
		{`replace(PSP-Element, "-", "")`, kindText, "invalid operation"},
		{`Buchungskreis == 1000`, kindBool, `the number 1000 at character 18: cells are text, so write it in quotes ("1000")`},
		{`Buchungskreis in ["1000", 2000]`, kindBool, `the number 2000 at character 27`},
		{`Buchungskreis = "1000"`, kindBool, "a single = at character 15: compare with =="},
		{`contains(Bezeichnung, "ump")`, kindBool, `contains is an operator at character 1: write Column contains "text"`},
		{`Bezeichnung == "a" || startsWith(Bezeichnung, "P")`, kindBool, `startsWith is an operator at character 23`},
		{`trimm(Bezeichnung)`, kindText, "unknown function trimm at character 1"},
		{`$env[Bezeichnung]`, kindText, `$env at character 1: write $env["column name"]`},
		{`$env`, kindText, `$env at character 1`},
		{`trim(A)`, kindBool, "gives text; a boolean is wanted"},
		{`A == "1"`, kindText, "gives a boolean; text is wanted"},
		{`len(A)`, kindText, "gives int; text is wanted"},
		{`A && B`, kindBool, "at character 3"},
		{`A == "x`, kindBool, "literal not terminated at character 8"},
		{"  ", kindBool, "the expression is empty"},
		{strings.Repeat("A", maxExprLength+1), kindText, "longer than"},
	} {
		_, err := parseExpr(tt.src, tt.want)
		if err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: %v, want %q", tt.src, err, tt.msg)
		}
	}
}

// trimmedColumn finds the column of trim(column), however it is named.
func TestTrimmedColumn(t *testing.T) {
	for src, want := range map[string]string{
		`trim(Bezeichnung)`: "Bezeichnung", `trim($env["Job No."])`: "Job No.", `trim(A, "x")`: "",
		`upper(A)`: "", `trim(A + B)`: "", `trim($env)`: "",
	} {
		e, err := parseExpr(src, kindText)
		if src == `trim($env)` {
			if err == nil {
				t.Errorf("%s: no error", src)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if got := trimmedColumn(e); got != want {
			t.Errorf("trimmedColumn(%s) = %q, want %q", src, got, want)
		}
	}
}

// hasWord finds a word between spaces, not a part of one.
func TestHasWord(t *testing.T) {
	for _, tt := range []struct {
		s, w string
		want bool
	}{
		{"REL  AUC  SETC", "REL", true}, {"PREL", "REL", false}, {"PREL REL", "REL", true},
		{"TECO", "TECO", true}, {"RELX REL", "REL", true}, {"", "REL", false}, {"REL", "", false},
	} {
		if got := hasWord(tt.s, tt.w); got != tt.want {
			t.Errorf("hasWord(%q, %q) = %v", tt.s, tt.w, got)
		}
	}
}

// An expression that fails on a row makes that row invalid, naming the
// row, the rule and the map's line, and the other rows are read.
func TestExpressionFailsOnARow(t *testing.T) {
	m := mapOf(t, "m.yaml", "version: 1\nwbsElementCode: A\ndescription: {expr: 'split(B, \"-\")[1]'}\n")
	res, err := m.Read(tableOf(t, []byte("A,B\nP-1,x-y\nP-2,z\n"), wbsfile.FormatCSV), wbsfile.Checks{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.File.Records) != 1 || *res.File.Records[0].Description != "y" || res.Counts.Invalid != 1 {
		t.Fatalf("records %v, counts %+v", res.File.Records, res.Counts)
	}
	if p := res.File.Problems; len(p) != 1 || !strings.HasPrefix(p[0].String(), `line 3: description: the expression fails: index out of range`) || !strings.Contains(p[0].String(), "m.yaml:3") {
		t.Fatalf("problems %v", p)
	}
}
