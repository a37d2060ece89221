package erpmap

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/xuri/excelize/v2"
)

var update = flag.Bool("update", false, "write the generated fixtures (testdata/sap-export.xlsx) and copy testdata's exports to examples/erp")

// sapSheet is the SAP fixture as CN43N's export to Excel has it, cell by
// cell from A1: a title (merged over the columns) and a selection row
// above a German header; company codes as numbers, cost centers as text
// with their leading zeros and once as a number whose zeros Excel
// dropped; several statuses a cell; rows of company code 2000 that the
// map's where leaves out; a blank row; a line item repeating P-100.01.
var sapSheet = [][]any{
	{"PSP-Elemente: Übersicht"},
	{"Projekt: P-100 bis P-200", nil, nil, nil, "Stichtag: 31.03.2025"},
	nil,
	{"PSP-Element", "Bezeichnung", "Buchungskreis", "Profitcenter", "Werk", "Kostenstelle", "Systemstatus", "Verantwortlicher"},
	{"P-100", "Kraftwerk Nord ", 1000, "1010", "1100", "0000004711", "REL  AUC  SETC", "Müller"},
	{"P-100.01", " Engineering", 1000, "1010", "1100", "0000004711", "REL  SETC", "Müller"},
	{"P-100.02", "Beschaffung", 1000, "1010", nil, 4712, "TECO", "Schmidt"},
	nil,
	{"P-100.03", "Montage Süd", 1000, "1020", "1200", "0000004713", "CLSD", "Schmidt"},
	{"P-200", "Werk West", 2000, "2010", "2100", "0000005000", "REL", "Weber"},
	{"P-200.01", "Planung", 2000, "2010", "2100", "0000005001", "CRTD", "Weber"},
	{"P-100.04", "Inbetriebnahme", 1000, "1020", "1200", nil, "CRTD", "Becker"},
	{"P-100.01", " Engineering", 1000, "1010", "1100", "0000004711", "REL  SETC", "Müller"},
	{"P-100.05", "Rückbau", 1000, nil, "1200", "0000004714", "TECO  DLFL", "Becker"},
}

// workbook writes rows to the sheet Daten of a new workbook, merging the
// ranges merge.
func workbook(t testing.TB, rows [][]any, merge ...[2]string) []byte {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	if err := f.SetSheetName("Sheet1", "Daten"); err != nil {
		t.Fatal(err)
	}
	for i, row := range rows {
		if row == nil {
			continue
		}
		cell, _ := excelize.CoordinatesToCellName(1, i+1)
		if err := f.SetSheetRow("Daten", cell, &row); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range merge {
		if err := f.MergeCell("Daten", m[0], m[1]); err != nil {
			t.Fatal(err)
		}
	}
	var b bytes.Buffer
	if err := f.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func sapWorkbook(t testing.TB) []byte {
	return workbook(t, sapSheet, [2]string{"A1", "H1"})
}

// exampleFiles are the fixtures that examples/erp holds too, the same
// bytes.
var exampleFiles = []string{
	"sap-export.xlsx", "sap.wbsmap.yaml", "sap-expected.csv",
	"sap-export-en.txt", "sap-en.wbsmap.yaml",
	"dynamics-export.csv", "dynamics.wbsmap.yaml", "dynamics-expected.csv",
}

// The SAP workbook under testdata is the one sapSheet describes, and
// examples/erp holds the same files as testdata (go test -update writes
// both).
func TestFixturesAreCurrent(t *testing.T) {
	examples := filepath.Join("..", "..", "examples", "erp")
	if *update {
		if err := os.WriteFile(filepath.Join("testdata", "sap-export.xlsx"), sapWorkbook(t), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, name := range exampleFiles {
			data, err := os.ReadFile(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(examples, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	data, err := os.ReadFile(filepath.Join("testdata", "sap-export.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sheetCells(t, data), sheetCells(t, sapWorkbook(t)); !reflect.DeepEqual(got, want) {
		t.Errorf("testdata/sap-export.xlsx is not the workbook sapSheet describes: run go test -update\ngot  %q\nwant %q", got, want)
	}
	for _, name := range exampleFiles {
		a, errA := os.ReadFile(filepath.Join("testdata", name))
		b, errB := os.ReadFile(filepath.Join(examples, name))
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Errorf("examples/erp/%s differs from testdata/%s (%v, %v): run go test -update", name, name, errA, errB)
		}
	}
}

// sheetCells are the cells of the sheet Daten as a spreadsheet shows
// them, and its merged ranges.
func sheetCells(t *testing.T, data []byte) [][]string {
	t.Helper()
	f, err := excelize.OpenReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := f.GetRows("Daten")
	if err != nil {
		t.Fatal(err)
	}
	merged, err := f.GetMergeCells("Daten", true)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range merged {
		rows = append(rows, []string{"merged", m.GetStartAxis(), m.GetEndAxis()})
	}
	return rows
}
