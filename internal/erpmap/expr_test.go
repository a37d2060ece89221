package erpmap

import (
	"testing"
)

// Expressions give what they say, reading the cells of a row by their
// column's name.
func TestExpressions(t *testing.T) {
	header := []string{"Buchungskreis", "Bezeichnung", "PSP-Element", "Systemstatus", "Job No.", "in"}
	row := []string{"1000", "  Pumpe  ", "P-100.01", "REL  AUC  SETC", "J-7", "x"}
	column := map[string]int{}
	for i, h := range header {
		column[h] = i
	}
	texts := []struct{ src, want string }{
		{`trim(Bezeichnung)`, "Pumpe"},
		{`upper(trim(Bezeichnung))`, "PUMPE"},
		{`lower("ABC")`, "abc"},
		{"`PSP-Element`", "P-100.01"},
		{`$env["PSP-Element"]`, "P-100.01"},
		{`$env[ 'Job No.' ]`, "J-7"},
		{"concat(`Job No.`, \"-\", `PSP-Element`)", "J-7-P-100.01"},
		{`replace(PSP-Element, "-", "")`, ""}, // PSP-Element is not a name: see the refusals
		{`replace($env["PSP-Element"], ".", "/")`, "P-100/01"},
		{`alpha("0000004711")`, "4711"},
		{`alpha("00A1")`, "00A1"},
		{`"a\"b\\c"`, `a"b\c`},
		{`'it''s'`, ""},
	}
	for _, tt := range texts {
		e, err := parseExpr(tt.src, kindText)
		if tt.want == "" {
			if err == nil {
				t.Errorf("%s: no error", tt.src)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.src, err)
			continue
		}
		if got := bindText(e.root, column)(row); got != tt.want {
			t.Errorf("%s = %q, want %q", tt.src, got, tt.want)
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
		{`contains(Bezeichnung, "ump") || false`, true},
		{`startsWith($env["PSP-Element"], "P-1") == endsWith(Bezeichnung, "x")`, false},
		{"(Buchungskreis == \"2000\" || `in` == \"x\") && true", true},
		{`!(Buchungskreis == "1000")`, false},
	}
	for _, tt := range bools {
		e, err := parseExpr(tt.src, kindBool)
		if err != nil {
			t.Errorf("%s: %v", tt.src, err)
			continue
		}
		if got := bindBool(e.root, column)(row); got != tt.want {
			t.Errorf("%s = %v, want %v", tt.src, got, tt.want)
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
