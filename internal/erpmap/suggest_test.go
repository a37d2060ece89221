package erpmap

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/internal/wbsfile"
)

// suggested is what a suggested map maps: each field's column or
// expression, the organizations by type.
type suggested struct {
	code, description, active string
	words                     bool
	orgs                      map[string]string
}

func suggestedOf(t *testing.T, m *Map) suggested {
	t.Helper()
	text := func(r *textRule) string {
		switch {
		case r == nil:
			return ""
		case r.expr != nil:
			return "expr " + r.expr.src
		case r.alpha:
			return r.column + " (alpha)"
		}
		return r.column
	}
	s := suggested{code: text(&m.code), description: text(m.texts[0]), orgs: map[string]string{}}
	if m.active != nil {
		s.active, s.words = m.active.column, m.active.words
	}
	for _, o := range m.organizations {
		s.orgs[o.entityType] = text(&o.textRule)
	}
	return s
}

// map init recognises the columns of SAP (German and English labels and
// the technical names), Oracle EBS, Dynamics 365 and Business Central,
// and the map it writes is one Parse reads.
func TestSuggestRecognisesERPColumns(t *testing.T) {
	sapOrgs := func(company, profit, plant, cost string) map[string]string {
		return map[string]string{"company": company, "profitCenter": profit, "plant": plant, "costCenter": cost}
	}
	tests := []struct {
		name  string
		table func(t *testing.T) *Table
		want  suggested
		more  []string // lines the map holds
	}{
		{"SAP workbook, German", func(t *testing.T) *Table { return tableOf(t, readFixture(t, "sap-export.xlsx"), wbsfile.FormatXLSX) },
			suggested{"PSP-Element", "Bezeichnung", "Systemstatus", true, sapOrgs("Buchungskreis", "Profitcenter", "Werk", "Kostenstelle (alpha)")},
			[]string{"header: {find: [PSP-Element, Bezeichnung]}", `# where: 'Buchungskreis == "1000"'`, "#   Verantwortlicher",
				"(Daten row 4)", "map: {DLFL: false, CLSD: false, TECO: false, REL: true, PREL: true, CRTD: true}", "# also in the column: AUC, SETC"}},
		{"SAP text, English", func(t *testing.T) *Table { return tableOf(t, readFixture(t, "sap-export-en.txt"), wbsfile.FormatCSV) },
			suggested{"WBS Element", "Description", "System Status", true, sapOrgs("Company Code", "Profit Center", "Plant", "Cost Center (alpha)")},
			[]string{"header: {find: [WBS Element, Description]}", "(line 4)", `$env["Company Code"] == "1000"`, "#   Person Responsible"}},
		{"SAP technical names", func(t *testing.T) *Table {
			return tableOf(t, []byte("POSID,POST1,PBUKR,PRCTR,WERKS,KOSTL\nP-1,x,1000,0000001010,1100,4711\n"), wbsfile.FormatCSV)
		},
			suggested{"POSID", "POST1", "", false, sapOrgs("PBUKR", "PRCTR (alpha)", "WERKS", "KOSTL")},
			[]string{"# isActive: {column: COLUMN"}},
		{"Oracle EBS", func(t *testing.T) *Table {
			return tableOf(t, []byte("PROJECT_NUMBER,TASK_NUMBER,TASK_NAME,DESCRIPTION,CHARGEABLE_FLAG,CARRYING_OUT_ORGANIZATION_NAME\nPA-1,1.0,Design,Long text,Y,Vision Operations\nPA-1,1.1,Build,,N,Vision Operations\n"), wbsfile.FormatCSV)
		},
			suggested{`expr concat(PROJECT_NUMBER, "-", TASK_NUMBER)`, "TASK_NAME", "CHARGEABLE_FLAG", false, map[string]string{"organization": "CARRYING_OUT_ORGANIZATION_NAME"}},
			[]string{`map: {"N": false, "Y": true}`, "#   DESCRIPTION", "header: {find: [TASK_NUMBER, TASK_NAME]}"}},
		{"Dynamics 365", func(t *testing.T) *Table { return tableOf(t, readFixture(t, "dynamics-export.csv"), wbsfile.FormatCSV) },
			suggested{`expr concat(ProjectId, "-", WBSId)`, "TaskName", "TaskStatus", false, map[string]string{"company": "TaskOwningCompany"}},
			[]string{"map: {Completed: false, Cancelled: false, In progress: true, Not started: true}", "#   TaskEffort", "header: {find: [WBSId, TaskName]}"}},
		{"Business Central", func(t *testing.T) *Table {
			return tableOf(t, []byte("Job No.;Job Task No.;Description;Job Task Type;Global Dimension 1 Code\nJ-1;1000;Design;Posting;SALES\nJ-1;2000;Total;Total;\n"), wbsfile.FormatCSV)
		},
			suggested{`expr concat($env["Job No."], "-", $env["Job Task No."])`, "Description", "", false, map[string]string{}},
			[]string{`# where: '$env["Job Task Type"] == "Posting"'`, "(Job Task Type: Posting, Total)", "#   Global Dimension 1 Code", "# organizations:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := Suggest(tt.table(t), "export")
			if err != nil {
				t.Fatal(err)
			}
			m, err := Parse("suggested.yaml", out)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			got := suggestedOf(t, m)
			if got.code != tt.want.code || got.description != tt.want.description || got.active != tt.want.active ||
				got.words != tt.want.words || !maps.Equal(got.orgs, tt.want.orgs) {
				t.Errorf("got  %+v\nwant %+v\n%s", got, tt.want, out)
			}
			for _, line := range tt.more {
				if !strings.Contains(string(out), line) {
					t.Errorf("no %q in\n%s", line, out)
				}
			}
		})
	}
}

// The map suggested for the SAP export maps it without a problem: what
// it does not filter, it reads.
func TestSuggestedMapReadsItsExport(t *testing.T) {
	out, err := Suggest(tableOf(t, readFixture(t, "sap-export.xlsx"), wbsfile.FormatXLSX), "sap-export.xlsx")
	if err != nil {
		t.Fatal(err)
	}
	res, err := mapOf(t, "suggested.yaml", string(out)).Read(tableOf(t, readFixture(t, "sap-export.xlsx"), wbsfile.FormatXLSX), wbsfile.Checks{})
	if err != nil || len(res.File.Problems) > 0 || res.Counts.Elements != 8 {
		t.Fatalf("%v %v %+v\n%s", err, res.File.Problems, res.Counts, out)
	}
	codes := slices.Collect(func(yield func(string) bool) {
		for _, r := range res.File.Records {
			yield(r.Code)
		}
	})
	if !slices.Contains(codes, "P-200") {
		t.Fatalf("codes %v", codes)
	}
}

// An export whose columns nothing recognises gets placeholders, and a
// header by its row.
func TestSuggestPlaceholders(t *testing.T) {
	out, err := Suggest(tableOf(t, []byte("Report\nA,B\n1,2\n"), wbsfile.FormatCSV), "x.csv")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"header: {row: 2}", "# wbsElementCode: COLUMN", "# description: COLUMN", "# isActive:", "# organizations:", "#   A\n#   B\n"} {
		if !strings.Contains(string(out), line) {
			t.Errorf("no %q in\n%s", line, out)
		}
	}
	if _, err := Parse("x.yaml", out); err == nil || !strings.Contains(err.Error(), "no wbsElementCode") {
		t.Fatalf("a map without a code: %v", err)
	}
}

// Names that YAML or an expression would read otherwise are quoted.
func TestSuggestQuoting(t *testing.T) {
	for _, tt := range []struct{ in, yaml, expr string }{
		{"PSP-Element", "PSP-Element", `$env["PSP-Element"]`},
		{"Job No.", "Job No.", `$env["Job No."]`},
		{"true", `"true"`, `$env["true"]`},
		{"1000", `"1000"`, `$env["1000"]`},
		{"a: b", `"a: b"`, `$env["a: b"]`},
		{"#x", `"#x"`, `$env["#x"]`}, {"trim", "trim", `$env["trim"]`}, {"startsWith", "startsWith", `$env["startsWith"]`},
		{"a`b", "\"a`b\"", "$env[\"a`b\"]"},
		{"Kostenstelle", "Kostenstelle", "Kostenstelle"},
	} {
		if got := yamlScalar(tt.in); got != tt.yaml {
			t.Errorf("yamlScalar(%q) = %s, want %s", tt.in, got, tt.yaml)
		}
		if got := exprName(tt.in); got != tt.expr {
			t.Errorf("exprName(%q) = %s, want %s", tt.in, got, tt.expr)
		}
	}
}
