package erpmap

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/internal/wbsfile"
	"github.com/wbsctl/wbsctl/sdk"
)

// mapOf reads the map file text, failing the test on a problem.
func mapOf(t testing.TB, name, text string) *Map {
	t.Helper()
	m, err := Parse(name, []byte(text))
	if err != nil {
		t.Fatalf("%s:\n%v", name, err)
	}
	return m
}

// tableOf reads an export's bytes.
func tableOf(t testing.TB, data []byte, f wbsfile.Format) *Table {
	t.Helper()
	tab, err := ReadTable(data, f, wbsfile.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tab.Close() })
	return tab
}

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// record is a record as a test compares it.
type record struct {
	Code, Description, IsActive string
	Organizations               string
	OrganizationsSet            bool
}

func records(recs []wbsfile.Record) []record {
	out := make([]record, len(recs))
	for i, r := range recs {
		out[i] = record{Code: r.Code, Description: "<nil>", IsActive: "<nil>", OrganizationsSet: r.OrganizationsSet}
		if r.Description != nil {
			out[i].Description = *r.Description
		}
		if r.IsActive != nil {
			out[i].IsActive = fmt.Sprint(*r.IsActive)
		}
		var orgs []string
		for _, o := range r.Organizations {
			orgs = append(orgs, o.EntityType+"="+o.Code)
		}
		out[i].Organizations = strings.Join(orgs, ";")
	}
	return out
}

// The SAP workbook (title rows above a German header, leading zeros,
// several statuses a cell, a company-code filter, a repeated line item),
// its English export as tab-separated text, and a Dynamics CSV give,
// through their maps, exactly the records of their hand-converted
// equivalents in wbsctl's own CSV.
func TestExportsMapToTheirHandConvertedEquivalents(t *testing.T) {
	tests := []struct {
		export, format, mapFile, expected string
		counts                            Counts
		headerRow                         string
	}{
		{"sap-export.xlsx", "xlsx", "sap.wbsmap.yaml", "sap-expected.csv", Counts{Rows: 9, Filtered: 2, Mapped: 7, Elements: 6}, "Daten row 4"},
		{"sap-export-en.txt", "csv", "sap-en.wbsmap.yaml", "sap-expected.csv", Counts{Rows: 9, Filtered: 2, Mapped: 7, Elements: 6}, "line 4"},
		{"dynamics-export.csv", "csv", "dynamics.wbsmap.yaml", "dynamics-expected.csv", Counts{Rows: 5, Mapped: 5, Elements: 5}, "line 1"},
	}
	for _, tt := range tests {
		t.Run(tt.export, func(t *testing.T) {
			m := mapOf(t, tt.mapFile, string(readFixture(t, tt.mapFile)))
			res, err := m.Read(tableOf(t, readFixture(t, tt.export), wbsfile.Format(tt.format)), wbsfile.Checks{})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.File.Problems) > 0 {
				t.Fatalf("problems: %v", res.File.Problems)
			}
			want, err := wbsfile.ParseBytes(readFixture(t, tt.expected), wbsfile.FormatCSV, wbsfile.ReadOptions{})
			if err != nil || len(want.Problems) > 0 {
				t.Fatal(err, want.Problems)
			}
			got, wantRecs := records(res.File.Records), records(want.Records)
			for i := range max(len(got), len(wantRecs)) {
				switch {
				case i >= len(got):
					t.Errorf("record %d: missing, want %+v", i, wantRecs[i])
				case i >= len(wantRecs):
					t.Errorf("record %d: %+v, want none", i, got[i])
				case got[i] != wantRecs[i]:
					t.Errorf("record %d:\n got  %+v\n want %+v", i, got[i], wantRecs[i])
				}
			}
			if res.Counts != tt.counts || res.HeaderRow != tt.headerRow {
				t.Errorf("counts %+v under %q, want %+v under %q", res.Counts, res.HeaderRow, tt.counts, tt.headerRow)
			}
			// The records' lines are the export's rows.
			if tt.export == "sap-export.xlsx" && res.File.Records[0].Line != 5 {
				t.Errorf("P-100 on row %d, want 5", res.File.Records[0].Line)
			}
		})
	}
}

// panicRows yields rows up to and including the header's row, and fails
// the test if a row below it is asked for.
func panicRows(t *testing.T, rows [][]string, header int) *Table {
	return &Table{Rows: func(yield func(Row) bool) {
		for i, cells := range rows {
			if i+1 > header {
				t.Fatalf("row %d below the header was read", i+1)
			}
			if !yield(Row{Line: i + 1, Cells: cells}) {
				return
			}
		}
	}}
}

// A misspelled column fails before a row below the header is read,
// naming the map's line and the header's row.
func TestMisspelledColumnFailsBeforeARowIsRead(t *testing.T) {
	m := mapOf(t, "sap.wbsmap.yaml", "version: 1\n"+
		"header: {find: [PSP-Element]}\n"+
		"wbsElementCode: PSP-Element\n"+
		"description: {expr: 'trim(Bezeichnug)'}\n"+
		"organizations:\n"+
		"  plant: Wrek\n")
	rows := [][]string{{"Titel"}, {"PSP-Element", "Bezeichnung", "Werk"}, {"P-1", "x", "1100"}}
	_, err := m.Read(panicRows(t, rows, 2), wbsfile.Checks{})
	var me *Error
	if !errors.As(err, &me) || !errors.Is(err, sdk.ErrValidation) {
		t.Fatalf("err %v, want an *Error matching sdk.ErrValidation", err)
	}
	want := []string{
		"sap.wbsmap.yaml:4: description: unknown name Bezeichnug in the header, line 2 (did you mean Bezeichnung?)",
		"sap.wbsmap.yaml:6: organizations.plant: unknown column Wrek in the header, line 2 (did you mean Werk?)",
	}
	if got := strings.Split(err.Error(), "\n"); !reflect.DeepEqual(got, want) {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A problem of a row names the cell, the element's code, the rule and
// the map's line; in a text file, the line and the column.
func TestProblemsNameTheCellAndTheRule(t *testing.T) {
	m := mapOf(t, "sap.wbsmap.yaml", string(readFixture(t, "sap.wbsmap.yaml")))
	sheet := slices.Clone(sapSheet)
	sheet = append(sheet, []any{"P-100.01", " Engineering", 1000, "1010", "1100", "0000004711", "LKD", "Müller"})
	res, err := m.Read(tableOf(t, workbook(t, sheet), wbsfile.FormatXLSX), wbsfile.Checks{})
	if err != nil {
		t.Fatal(err)
	}
	want := `Daten!G15 (code "P-100.01"): isActive: "LKD" matches no entry of isActive.map (sap.wbsmap.yaml:9)`
	if len(res.File.Problems) != 1 || res.File.Problems[0].String() != want {
		t.Fatalf("problems %v, want\n%s", res.File.Problems, want)
	}
	// Every row of P-100.01 is left out, and the code is named invalid.
	if !slices.Equal(res.File.InvalidCodes, []string{"P-100.01"}) || res.Counts.Invalid != 3 || res.Counts.Elements != 5 {
		t.Fatalf("invalid codes %v, counts %+v", res.File.InvalidCodes, res.Counts)
	}
	for _, r := range res.File.Records {
		if r.Code == "P-100.01" {
			t.Fatalf("P-100.01 was kept: %+v", r)
		}
	}

	csv := "PSP-Element,Bezeichnung,Buchungskreis,Profitcenter,Werk,Kostenstelle,Systemstatus\n" +
		"P-1,a,1000,,,,LKD\n" +
		"P-2," + strings.Repeat("x", 101) + ",1000,,,,REL\n" +
		",c,1000,,,,REL\n"
	res, err = m.Read(tableOf(t, []byte(csv), wbsfile.FormatCSV), wbsfile.Checks{})
	if err != nil {
		t.Fatal(err)
	}
	wants := []string{
		`line 2 (code "P-1"): isActive: "LKD" matches no entry of isActive.map (column "Systemstatus", sap.wbsmap.yaml:9)`,
		`line 3 (code "P-2"): description: is 101 characters long (limit: at most 100 characters) (column "Bezeichnung", sap.wbsmap.yaml:5)`,
		`line 4: wbsElementCode: is empty (limit: 1 to 30 characters) (column "PSP-Element", sap.wbsmap.yaml:4)`,
	}
	var got []string
	for _, p := range res.File.Problems {
		got = append(got, p.String())
	}
	if !slices.Equal(got, wants) {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wants, "\n"))
	}
	if res.File.CodeUnknown == nil || res.File.CodeUnknown.Line != 4 || len(res.File.Records) != 0 || len(res.File.Invalid) != 3 {
		t.Fatalf("code unknown %v, records %v, invalid %v", res.File.CodeUnknown, res.File.Records, res.File.Invalid)
	}
}

// The header is refused, before any row below it is read, when it is not
// in the first 50 rows, names a column twice, or has a merged cell.
func TestHeaderRefusals(t *testing.T) {
	manyRows := make([][]string, 60)
	for i := range manyRows {
		manyRows[i] = []string{fmt.Sprintf("title %d", i)}
	}
	manyRows[55] = []string{"PSP-Element", "Bezeichnung"}
	tests := []struct {
		name  string
		mapF  string
		table func(t *testing.T) *Table
		want  string
	}{
		{"not in 50 rows", "version: 1\nheader: {find: [PSP-Element, Bezeichnung]}\nwbsElementCode: PSP-Element\n",
			func(t *testing.T) *Table { return panicRows(t, manyRows, 50) },
			`m.yaml:2: header: no row of the first 50 holds "PSP-Element", "Bezeichnung"`},
		{"nearest row", "version: 1\nheader: {find: [PSP-Element, Bezeichnung]}\nwbsElementCode: PSP-Element\n",
			func(t *testing.T) *Table { return panicRows(t, [][]string{{"x"}, {"PSP-Element", "Beschreibung"}}, 2) },
			`m.yaml:2: header: no row of the first 50 holds "PSP-Element", "Bezeichnung"; the nearest, line 2, lacks "Bezeichnung"`},
		{"a name twice", "version: 1\nheader: {row: 1}\nwbsElementCode: PSP-Element\ndescription: Bezeichnung\n",
			func(t *testing.T) *Table {
				return panicRows(t, [][]string{{"PSP-Element", "Bezeichnung", "Bezeichnung"}}, 1)
			},
			`m.yaml:4: description: the header, line 1, names "Bezeichnung" twice (column 2 and column 3): which to read cannot be told`},
		{"row blank", "version: 1\nheader: {row: 3}\nwbsElementCode: PSP-Element\n",
			func(t *testing.T) *Table { return panicRows(t, [][]string{{"a"}, {"b"}, {}}, 3) },
			`m.yaml:2: header: row 3 of the export is blank or missing: give header.row the header's row`},
		{"merged header cell", "version: 1\nheader: {find: [PSP-Element]}\nwbsElementCode: PSP-Element\n",
			func(t *testing.T) *Table {
				tab := tableOf(t, workbook(t, [][]any{{"Titel"}, {"PSP-Element", "Bezeichnung"}, {"P-1"}}, [2]string{"A1", "C1"}, [2]string{"B2", "C2"}), wbsfile.FormatXLSX)
				return tab
			},
			`m.yaml:2: header: the header row has merged cells, Daten!B2:C2: unmerge them, so that each column has a name of its own`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := mapOf(t, "m.yaml", tt.mapF).Read(tt.table(t), wbsfile.Checks{})
			if err == nil || err.Error() != tt.want {
				t.Fatalf("got  %v\nwant %s", err, tt.want)
			}
		})
	}
}

// A column is matched exactly, else regardless of case and spaces when
// that finds one.
func TestColumnsMatchInAnyCaseWhenUnique(t *testing.T) {
	m := mapOf(t, "m.yaml", "version: 1\nwbsElementCode: psp-element\ndescription: Bezeichnung\n")
	res, err := m.Read(tableOf(t, []byte("PSP-Element , bezeichnung,BEZEICHNUNG\nP-1,a,b\n"), wbsfile.FormatCSV), wbsfile.Checks{})
	if err == nil || !strings.Contains(err.Error(), `m.yaml:3: description: the header, line 1, holds "Bezeichnung" more than once in other cases`) {
		t.Fatalf("two columns in other cases: %v", err)
	}
	res, err = m.Read(tableOf(t, []byte("PSP-Element ,bezeichnung,Bezeichnung\nP-1,a,b\n"), wbsfile.FormatCSV), wbsfile.Checks{})
	if err != nil || records(res.File.Records)[0] != (record{Code: "P-1", Description: "b", IsActive: "<nil>"}) {
		t.Fatalf("%v %+v", err, res)
	}
}

// Rows of one code merge into one record when they agree, their links
// joined without repeats; rows that disagree leave the element out,
// naming both rows.
func TestRowsOfOneCodeMustAgree(t *testing.T) {
	m := mapOf(t, "m.yaml", "version: 1\nwbsElementCode: Code\ndescription: Text\nisActive: Active\norganizations:\n  plant: Plant\n")
	csv := "Code,Text,Active,Plant\nA,x,true,1\nB,y,true,1\nA,x,WAHR,2\nA,x,true,1\nB,z,true,1\n"
	res, err := m.Read(tableOf(t, []byte(csv), wbsfile.FormatCSV), wbsfile.Checks{})
	if err != nil {
		t.Fatal(err)
	}
	if got := records(res.File.Records); len(got) != 1 || got[0] != (record{Code: "A", Description: "x", IsActive: "true", Organizations: "plant=1;plant=2", OrganizationsSet: true}) {
		t.Fatalf("records %+v", got)
	}
	want := `line 6 (code "B"): description: is "z" here but "y" in line 3: rows of one element must agree (column "Text", m.yaml:3)`
	if len(res.File.Problems) != 1 || res.File.Problems[0].String() != want {
		t.Fatalf("problems %v\nwant %s", res.File.Problems, want)
	}
	if res.Counts != (Counts{Rows: 5, Mapped: 3, Invalid: 2, Elements: 1}) {
		t.Fatalf("counts %+v", res.Counts)
	}
}

// An empty organization cell gives no link of that type; a value is the
// same for every row; a map without organizations states none.
func TestOrganizations(t *testing.T) {
	m := mapOf(t, "m.yaml", "version: 1\nwbsElementCode: Code\norganizations:\n  company: {value: \"1000\"}\n  costCenter: {column: KST, alpha: true}\n  plant: {expr: 'upper(trim(Werk))'}\n")
	if !slices.Equal(m.OwnedTypes(), []string{"company", "costCenter", "plant"}) {
		t.Fatalf("owned types %v", m.OwnedTypes())
	}
	res, err := m.Read(tableOf(t, []byte("Code,KST,Werk\nA,0000004711, w1 \nB,,\nC,0000,AB-0001\nD,00A1,\n"), wbsfile.FormatCSV), wbsfile.Checks{})
	if err != nil {
		t.Fatal(err)
	}
	want := []record{
		{Code: "A", Description: "<nil>", IsActive: "<nil>", Organizations: "company=1000;costCenter=4711;plant=W1", OrganizationsSet: true},
		{Code: "B", Description: "<nil>", IsActive: "<nil>", Organizations: "company=1000", OrganizationsSet: true},
		{Code: "C", Description: "<nil>", IsActive: "<nil>", Organizations: "company=1000;costCenter=0;plant=AB-0001", OrganizationsSet: true},
		{Code: "D", Description: "<nil>", IsActive: "<nil>", Organizations: "company=1000;costCenter=00A1", OrganizationsSet: true},
	}
	if got := records(res.File.Records); !slices.Equal(got, want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
	// A code of an organization the platform would refuse names its rule.
	res, err = m.Read(tableOf(t, []byte("Code,KST,Werk\nE,1,\"a\tb\"\n"), wbsfile.FormatCSV), wbsfile.Checks{})
	if err != nil || len(res.File.Problems) != 1 || res.File.Problems[0].String() !=
		`line 2 (code "E"): organizations.plant: holds the control character U+0009 (limit: no control characters) (column "Werk", m.yaml:6)` {
		t.Fatalf("%v %v", err, res.File.Problems)
	}
	m = mapOf(t, "m.yaml", "version: 1\nwbsElementCode: Code\n")
	res, err = m.Read(tableOf(t, []byte("Code\nA\n"), wbsfile.FormatCSV), wbsfile.Checks{})
	if err != nil || res.File.Records[0].OrganizationsSet || m.OwnedTypes() != nil {
		t.Fatalf("%v %+v %v", err, res.File.Records, m.OwnedTypes())
	}
}

// isActive: a column of booleans reads as apply reads one; a map with
// words takes the first entry the cell holds; else decides the rest.
func TestIsActive(t *testing.T) {
	tests := []struct {
		rule, cell, want, problem string
	}{
		{"Status", "WAHR", "true", ""},
		{"Status", "no", "false", ""},
		{"Status", "", "<nil>", ""},
		{"Status", "maybe", "", `"maybe" is not a boolean`},
		{"{column: Status, words: true, map: {TECO: false, REL: true}}", "REL  TECO", "false", ""},
		{"{column: Status, words: true, map: {TECO: false, REL: true}}", "REL  SETC", "true", ""},
		{"{column: Status, words: true, map: {TECO: false, REL: true}}", "PREL", "", `"PREL" matches no entry of isActive.map`},
		{"{column: Status, words: true, map: {TECO: false, REL: true}, else: true}", "PREL", "true", ""},
		{"{column: Status, words: true, map: {TECO: false, REL: true}}", "", "", "is empty, which matches no entry of isActive.map"},
		{"{column: Status, map: {Not started: true, Completed: false}, else: false}", "Not started", "true", ""},
		{"{column: Status, map: {Not started: true, Completed: false}, else: false}", "Not", "false", ""},
		{`{expr: '!hasWord(Status, "CLSD")'}`, "REL CLSD", "false", ""},
	}
	for _, tt := range tests {
		t.Run(tt.rule+" "+tt.cell, func(t *testing.T) {
			m := mapOf(t, "m.yaml", "version: 1\nwbsElementCode: Code\nisActive: "+tt.rule+"\n")
			res, err := m.Read(&Table{Header: []string{"Code", "Status"}, Rows: func(yield func(Row) bool) {
				yield(Row{Line: 2, Cells: []string{"A", tt.cell}})
			}}, wbsfile.Checks{})
			if err != nil {
				t.Fatal(err)
			}
			if tt.problem != "" {
				if len(res.File.Problems) != 1 || !strings.Contains(res.File.Problems[0].Message, tt.problem) {
					t.Fatalf("problems %v, want %q", res.File.Problems, tt.problem)
				}
				return
			}
			if len(res.File.Problems) > 0 || records(res.File.Records)[0].IsActive != tt.want {
				t.Fatalf("problems %v, records %+v, want %s", res.File.Problems, records(res.File.Records), tt.want)
			}
		})
	}
}

// A code that shows as another is refused as apply refuses it, unless
// the checks allow it.
func TestInvisibleCodes(t *testing.T) {
	m := mapOf(t, "m.yaml", "version: 1\nwbsElementCode: Code\n")
	csv := "Code\nP-1\u200b\nKöln-1\n"
	res, err := m.Read(tableOf(t, []byte(csv), wbsfile.FormatCSV), wbsfile.Checks{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.File.Problems) != 1 || !strings.Contains(res.File.Problems[0].Message, "U+200B") || len(res.File.Records) != 1 {
		t.Fatalf("problems %v, records %v", res.File.Problems, res.File.Records)
	}
	res, err = m.Read(tableOf(t, []byte(csv), wbsfile.FormatCSV), wbsfile.Checks{AllowInvisibleCodes: true})
	if err != nil || len(res.File.Problems) != 0 || len(res.File.Records) != 2 {
		t.Fatalf("allowed: %v %v %v", err, res.File.Problems, res.File.Records)
	}
}

// Rows of a CSV file with another count of cells than the header are
// refused; a workbook's rows may end early. Unreadable rows and an
// export with no row name no code: a prune then deletes nothing.
func TestRowsThatCannotBeRead(t *testing.T) {
	m := mapOf(t, "m.yaml", "version: 1\nwbsElementCode: Code\ndescription: Text\n")
	res, err := m.Read(tableOf(t, []byte("Code,Text\nA,x,y\nB\n\"C,x\n"), wbsfile.FormatCSV), wbsfile.Checks{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.File.Problems) != 3 || res.File.CodeUnknown == nil || !strings.Contains(res.File.Problems[0].String(), "line 2: has 3 cells, the header 2") {
		t.Fatalf("problems %v", res.File.Problems)
	}
	res, err = m.Read(tableOf(t, []byte("Code,Text\n"), wbsfile.FormatCSV), wbsfile.Checks{})
	if err != nil || len(res.File.Problems) != 1 || res.File.Problems[0].String() != "line 1: the export holds no row below the header" {
		t.Fatalf("%v %v", err, res.File.Problems)
	}
	res, err = m.Read(tableOf(t, workbook(t, [][]any{{"Code", "Text"}, {"A"}}), wbsfile.FormatXLSX), wbsfile.Checks{})
	if err != nil || len(res.File.Problems) != 0 || records(res.File.Records)[0].Description != "" {
		t.Fatalf("%v %v %+v", err, res.File.Problems, res.File.Records)
	}
}

// JSON and NDJSON exports are objects with members of any names.
func TestJSONExports(t *testing.T) {
	m := mapOf(t, "m.yaml", "version: 1\nwbsElementCode: TASK_NUMBER\ndescription: TASK_NAME\nisActive: {column: CHARGEABLE_FLAG, map: {Y: true, N: false}}\n")
	for _, tt := range []struct {
		f    wbsfile.Format
		data string
	}{
		{wbsfile.FormatJSON, `[{"TASK_NUMBER": "1.0", "TASK_NAME": "Design", "CHARGEABLE_FLAG": "Y", "COST": 12.5},
 {"TASK_NUMBER": "1.1", "TASK_NAME": null, "CHARGEABLE_FLAG": "N"}]`},
		{wbsfile.FormatNDJSON, `{"TASK_NUMBER": "1.0", "TASK_NAME": "Design", "CHARGEABLE_FLAG": "Y", "COST": 12.5}
{"TASK_NAME": null, "CHARGEABLE_FLAG": "N", "TASK_NUMBER": "1.1"}
`},
	} {
		res, err := m.Read(tableOf(t, []byte(tt.data), tt.f), wbsfile.Checks{})
		if err != nil {
			t.Fatal(err)
		}
		want := []record{{Code: "1.0", Description: "Design", IsActive: "true"}, {Code: "1.1", Description: "", IsActive: "false"}}
		if got := records(res.File.Records); !slices.Equal(got, want) || res.File.Records[1].Line != 2 {
			t.Fatalf("%s: %+v %v", tt.f, got, res.File.Problems)
		}
	}
	if _, err := ReadTable([]byte(`[{"A": {"B": 1}}]`), wbsfile.FormatJSON, wbsfile.ReadOptions{}); err == nil || !strings.Contains(err.Error(), `the member "A" holds an object or a list`) {
		t.Fatalf("nested: %v", err)
	}
}

// Text exports are read in the encodings apply reads, with the
// delimiter the most of their first lines hold.
func TestTextExports(t *testing.T) {
	m := mapOf(t, "m.yaml", "version: 1\nheader: {find: [Code]}\nwbsElementCode: Code\ndescription: Text\n")
	win := []byte("Bericht, Stand heute\r\nCode;Text\r\nA;M\xfcller, K\xf6ln\r\n")
	tab, err := ReadTable(win, wbsfile.FormatCSV, wbsfile.ReadOptions{Encoding: "cp1252"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Read(tab, wbsfile.Checks{})
	if err != nil || len(res.File.Records) != 1 || *res.File.Records[0].Description != "Müller, Köln" {
		t.Fatalf("%v %+v %v", err, res, res.File.Problems)
	}
	if _, err := ReadTable(win, wbsfile.FormatCSV, wbsfile.ReadOptions{}); err == nil || !strings.Contains(err.Error(), "line 3: is not valid UTF-8: give the file's encoding with --encoding") {
		t.Fatalf("no encoding: %v", err)
	}
	utf16 := []byte{0xff, 0xfe}
	for _, r := range "Code\tText\nA\tx\n" {
		utf16 = append(utf16, byte(r), 0)
	}
	res, err = m.Read(tableOf(t, utf16, wbsfile.FormatCSV), wbsfile.Checks{})
	if err != nil || len(res.File.Records) != 1 || *res.File.Records[0].Description != "x" {
		t.Fatalf("UTF-16: %v %+v", err, res)
	}
	// Commas in the title and the text, semicolons between the cells.
	res, err = m.Read(tableOf(t, []byte("Bericht, Stand heute\nCode;Text\nA;x, y\nB;z, w\n"), wbsfile.FormatCSV), wbsfile.Checks{})
	if err != nil || len(res.File.Records) != 2 || *res.File.Records[0].Description != "x, y" {
		t.Fatalf("';': %v %+v", err, res)
	}
}

// Digest is the sha256 of the map file's bytes, written as apply writes
// a file's.
func TestDigest(t *testing.T) {
	text := "version: 1\nwbsElementCode: Code\n"
	sum := sha256.Sum256([]byte(text))
	a, b := mapOf(t, "m.yaml", text), mapOf(t, "m.yaml", text+"# the same map\n")
	if a.Digest() != "sha256:"+hex.EncodeToString(sum[:]) || a.Digest() == b.Digest() {
		t.Fatalf("digests %s %s", a.Digest(), b.Digest())
	}
}
