package erpmap

import (
	"strings"
	"testing"
)

// A map is refused whole, every problem naming its line, before an
// export is opened.
func TestParseRefusals(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"unknown keys", "version: 1\nwbsElementCode: A\ndescripton: B\norganizations:\n  plant: {column: W, alhpa: true}\n",
			[]string{`m.yaml:3: unknown key "descripton"`, `m.yaml:5: organizations.plant: unknown key "alhpa"`}},
		{"no version, no code", "description: B\n",
			[]string{"m.yaml:1: version: the map has no version", "m.yaml:1: wbsElementCode: the map has no wbsElementCode"}},
		{"another version", "version: 2\nwbsElementCode: A\n", []string{`m.yaml:1: version: is "2": this wbsctl reads version 1`}},
		{"a key twice", "version: 1\nwbsElementCode: A\nwbsElementCode: B\n", []string{"m.yaml:3: wbsElementCode: given twice (first on line 2)"}},
		{"YAML syntax", "version: 1\nwbsElementCode: [A\n", []string{"m.yaml:"}},
		{"not a mapping", "- a\n", []string{"m.yaml:1: a map file is a mapping"}},
		{"expression syntax", "version: 1\nwbsElementCode: A\nwhere: 'Buchungskreis = \"1000\"'\n",
			[]string{"m.yaml:3: where: a single = at character 15: compare with =="}},
		{"a number in an expression", "version: 1\nwbsElementCode: A\nwhere: 'Buchungskreis == 1000'\n",
			[]string{`m.yaml:3: where: the number 1000 at character 18: cells are text, so write it in quotes ("1000")`}},
		{"where gives text", "version: 1\nwbsElementCode: A\nwhere: 'trim(A)'\n", []string{"m.yaml:3: where: gives text; a boolean is wanted"}},
		{"text where a boolean goes", "version: 1\nwbsElementCode: {expr: 'A == \"1\"'}\n", []string{"m.yaml:2: wbsElementCode: gives a boolean; text is wanted"}},
		{"unknown function", "version: 1\nwbsElementCode: A\ndescription: {expr: 'trimm(B)'}\n",
			[]string{"m.yaml:3: description: unknown function trimm at character 1 (the functions: alpha, concat, hasWord and expr-lang's builtins"}},
		{"arguments", "version: 1\nwbsElementCode: {expr: 'replace(A, \"x\")'}\n", []string{"m.yaml:2: wbsElementCode: not enough arguments to call replace at character 1"}},
		{"&& of text", "version: 1\nwbsElementCode: A\nwhere: 'A && B'\n", []string{"m.yaml:3: where: && at character 3 joins booleans, not text"}},
		{"unclosed", "version: 1\nwbsElementCode: A\nwhere: 'A == \"x'\n", []string{"m.yaml:3: where: literal not terminated at character 8"}},
		{"a column in backquotes", "version: 1\nwbsElementCode: A\nwhere: '`Company Code` == \"1000\"'\n",
			[]string{"m.yaml:3: where: `Company Code` at character 1 is a text in expr-lang, not a column: write $env[\"Company Code\"] for the column"}},
		{"header both", "version: 1\nheader: {find: [A], row: 2}\nwbsElementCode: A\n", []string{"m.yaml:2: header: gives both find and row"}},
		{"header row", "version: 1\nheader: {row: 51}\nwbsElementCode: A\n", []string{`m.yaml:2: header.row: is "51": give the header's row number, 1 to 50`}},
		{"header find twice", "version: 1\nheader:\n  find:\n    - A\n    - A\nwbsElementCode: A\n", []string{`m.yaml:5: header.find: names "A" twice`}},
		{"isActive map", "version: 1\nwbsElementCode: A\nisActive:\n  column: S\n  map: {REL: yes}\n  else: maybe\n",
			[]string{`m.yaml:5: isActive.map.REL: is "yes"; true or false is wanted`, `m.yaml:6: isActive.else: is "maybe": write error, true or false`}},
		{"words without map", "version: 1\nwbsElementCode: A\nisActive: {column: S, words: true}\n", []string{"m.yaml:3: isActive: words and else go with map"}},
		{"a status with a space", "version: 1\nwbsElementCode: A\nisActive: {column: S, words: true, map: {Not started: true}}\n",
			[]string{`m.yaml:3: isActive.map: "Not started" holds a space, which words: true splits on`}},
		{"column and expr", "version: 1\nwbsElementCode: {column: A, expr: 'B'}\n", []string{"m.yaml:2: wbsElementCode: gives more than one of column, expr and value"}},
		{"alpha of an expression", "version: 1\nwbsElementCode: {expr: 'B', alpha: true}\n", []string{"m.yaml:2: wbsElementCode: alpha goes with column"}},
		{"a constant code", "version: 1\nwbsElementCode: {value: P-1}\n", []string{"m.yaml:2: wbsElementCode: value gives every row the same text"}},
		{"an empty column", "version: 1\nwbsElementCode: ''\n", []string{"m.yaml:2: wbsElementCode: names no column"}},
		{"an entity type with a space", "version: 1\nwbsElementCode: A\norganizations:\n  ' plant': W\n", []string{`m.yaml:4: organizations: the entity type " plant"`}},
		{"organizations a list", "version: 1\nwbsElementCode: A\norganizations: [W]\n", []string{"m.yaml:3: organizations: is a list"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("m.yaml", []byte(tt.text))
			if err == nil {
				t.Fatal("no error")
			}
			lines := strings.Split(err.Error(), "\n")
			if len(lines) != len(tt.want) {
				t.Fatalf("got\n%v\nwant %d problems", err, len(tt.want))
			}
			for i, w := range tt.want {
				if !strings.HasPrefix(lines[i], w) {
					t.Errorf("problem %d:\n got  %s\n want %s…", i, lines[i], w)
				}
			}
		})
	}
}

// The forms a map takes are read as the package doc shows them.
func TestParseForms(t *testing.T) {
	m := mapOf(t, "m.yaml", `version: 1
header: {find: [PSP-Element, Bezeichnung]}
where: 'Buchungskreis in ["1000", "2000"] && !hasWord(Systemstatus, "DLFL")'
wbsElementCode: PSP-Element
description: {expr: 'trim(Bezeichnung)'}
isActive:
  column: Systemstatus
  words: true
  map: {CLSD: false, TECO: false, DLFL: false, REL: true}
  else: error
organizations:
  company: Buchungskreis
  plant: Werk
  costCenter: {column: Kostenstelle, alpha: true}
  branch: {value: B3}
`)
	if m.header.line != 2 || len(m.header.find) != 2 || m.where.line != 3 || m.active.mapLine != 9 || len(m.active.entries) != 4 ||
		m.active.entries[0] != (activeEntry{"CLSD", false}) || m.active.orElse != nil || len(m.organizations) != 4 ||
		m.organizations[2].textRule.line != 14 || !m.organizations[2].alpha || *m.organizations[3].value != "B3" {
		t.Fatalf("%+v", m)
	}
	if m.Name() != "m.yaml" || !m.StatesOrganizations() {
		t.Fatal(m.Name(), m.StatesOrganizations())
	}
}
