package wbsfile

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/sdk"
	"github.com/xuri/excelize/v2"
)

func exportRecords() []Record {
	desc := func(s string) *string { return &s }
	no := false
	return []Record{
		{Code: "1000", Texts: Texts{Description: desc("Müller & Söhne <GmbH>")}, OrganizationsSet: true,
			Organizations: []sdk.BusinessOrganization{{Code: "1000", EntityType: "company"}, {Code: "K;1", EntityType: "branch"}}},
		{Code: "007", Texts: Texts{Description: desc("")}, IsActive: &no, OrganizationsSet: true, Organizations: []sdk.BusinessOrganization{}},
		{Code: "=1+1", Texts: Texts{Description: desc("  spaces kept  ")}, OrganizationsSet: true, Organizations: []sdk.BusinessOrganization{}},
		{Code: "TRUE", Texts: Texts{Description: desc("2024-01-15")}, OrganizationsSet: true, Organizations: []sdk.BusinessOrganization{}},
	}
}

// export --format xlsx writes one sheet that reads back as exactly the records
// written: text stays text, whatever it looks like.
func TestWorkbookRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, FormatXLSX, exportRecords()); err != nil {
		t.Fatal(err)
	}
	back, err := ParseWith(bytes.NewReader(buf.Bytes()), FormatXLSX, ReadOptions{})
	if err != nil || len(back.Problems) > 0 {
		t.Fatalf("%v %v", err, back.Problems)
	}
	if !sameRecords(exportRecords(), back.Records) {
		t.Fatalf("%+v", back.Records)
	}

	wb, err := excelize.OpenReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	defer wb.Close()
	if got := wb.GetSheetList(); len(got) != 1 || got[0] != "WBS" {
		t.Fatalf("sheets %v", got)
	}
	// What a spreadsheet shows, cell by cell.
	for cell, want := range map[string]string{"A1": "wbsElementCode", "A2": "1000", "A3": "007", "A4": "=1+1", "B2": "Müller & Söhne <GmbH>",
		"B3": "", "C2": "TRUE", "C3": "FALSE", "D2": `company=1000;branch=K\;1`, "B4": "  spaces kept  "} {
		if got, _ := wb.GetCellValue("WBS", cell); got != want {
			t.Errorf("%s: %q, want %q", cell, got, want)
		}
	}
	for cell, want := range map[string]excelize.CellType{"A2": excelize.CellTypeInlineString, "C2": excelize.CellTypeBool, "A4": excelize.CellTypeInlineString} {
		if got, _ := wb.GetCellType("WBS", cell); got != want {
			t.Errorf("%s: type %v, want %v", cell, got, want)
		}
	}
	if f, _ := wb.GetCellFormula("WBS", "A4"); f != "" {
		t.Errorf("A4 is the formula %q", f)
	}
	panes, err := wb.GetPanes("WBS")
	if err != nil || !panes.Freeze || panes.YSplit != 1 || panes.TopLeftCell != "A2" {
		t.Errorf("the header row is not frozen: %+v %v", panes, err)
	}
	// Each column as wide as its widest cell, and a little more.
	for col, want := range map[string]float64{"A": 16, "B": 23, "C": 10, "D": 26} {
		if got, _ := wb.GetColWidth("WBS", col); got != want {
			t.Errorf("column %s is %v wide, want %v", col, got, want)
		}
	}
}

// An empty export is a workbook of the header alone, and its temporary
// file is gone.
func TestWorkbookEmpty(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	var buf bytes.Buffer
	if err := Write(&buf, FormatXLSX, nil); err != nil {
		t.Fatal(err)
	}
	wb, err := excelize.OpenReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	defer wb.Close()
	rows, _ := wb.GetRows("WBS")
	if len(rows) != 1 || strings.Join(rows[0], ",") != "wbsElementCode,description,isActive,businessOrganizations" {
		t.Fatalf("rows %q", rows)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("left behind: %v", left)
	}
}

// Every good file reads back the same through a workbook.
func TestGoodFilesRoundTripThroughAWorkbook(t *testing.T) {
	files, _ := filepath.Glob("testdata/good/*")
	for _, name := range files {
		f, _ := os.Open(name)
		format, _ := DetectFormat(name, "")
		file, err := Parse(f, format)
		f.Close()
		if err != nil || len(file.Problems) > 0 {
			t.Fatalf("%s: %v %v", name, err, file.Problems)
		}
		var buf bytes.Buffer
		if err := Write(&buf, FormatXLSX, file.Records); err != nil {
			t.Fatal(err)
		}
		back, err := Parse(&buf, FormatXLSX)
		if err != nil || len(back.Problems) > 0 || !sameRecords(file.Records, back.Records) {
			t.Fatalf("%s: %v %v\n%+v\n%+v", name, err, back.Problems, file.Records, back.Records)
		}
	}
}

// export --format csv --delimiter ';' --bom writes what Excel opens as UTF-8 in
// columns, and apply reads it back.
func TestCSVWriteOptions(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewRecordWriterWith(&buf, FormatCSV, WriteOptions{Delimiter: ';', BOM: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range exportRecords() {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want := "\xef\xbb\xbfwbsElementCode;description;isActive;businessOrganizations\n" +
		"1000;Müller & Söhne <GmbH>;true;\"company=1000;branch=K\\;1\"\n"
	if !strings.HasPrefix(buf.String(), want) {
		t.Fatalf("%q", buf.String())
	}
	back, err := Parse(&buf, FormatCSV)
	if err != nil || len(back.Problems) > 0 || !sameRecords(exportRecords(), back.Records) {
		t.Fatalf("%v %v %+v", err, back.Problems, back.Records)
	}
	if _, err := NewRecordWriterWith(&buf, FormatJSON, WriteOptions{BOM: true}); err == nil || !strings.Contains(err.Error(), "options of CSV") {
		t.Fatalf("--bom with JSON: %v", err)
	}
}

// A character a workbook cannot hold is refused by its element and field,
// not written as another: in a code, apply --prune of the workbook would
// delete the element and create one of another code.
func TestWorkbookRefusesWhatXMLCannotHold(t *testing.T) {
	desc := func(s string) *string { return &s }
	for _, tt := range []struct {
		rec  Record
		want string
	}{
		{Record{Code: "U-1", Texts: Texts{Description: desc("a\uffffb")}}, `the element "U-1": its description holds U+FFFF, which a workbook cannot hold: export it as CSV or JSON`},
		{Record{Code: "U-1", Texts: Texts{Description: desc("a\ufffeb")}}, `the element "U-1": its description holds U+FFFE`},
		{Record{Code: "P-1\ufffe"}, `the element "P-1\ufffe": its wbsElementCode holds U+FFFE, which a workbook cannot hold`},
		{Record{Code: "\uffff"}, `the element "\uffff": its wbsElementCode holds U+FFFF`},
		{Record{Code: "U-2", OrganizationsSet: true, Organizations: []sdk.BusinessOrganization{{Code: "1000", EntityType: "company\ufffe"}}},
			`the element "U-2": its businessOrganizations holds U+FFFE`},
		{Record{Code: "U-3", OrganizationsSet: true, Organizations: []sdk.BusinessOrganization{{Code: "10\uffff", EntityType: "company"}}},
			`the element "U-3": its businessOrganizations holds U+FFFF`},
	} {
		var buf bytes.Buffer
		w, err := NewRecordWriter(&buf, FormatXLSX)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(tt.rec); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want %q", tt.rec.Code, err, tt.want)
		}
		w.Close()
	}
	// Noncharacters beyond the first plane, U+FFFD and text that XML
	// escapes are text a workbook holds.
	recs := []Record{{Code: "U-4\U0001fffe\U0010ffff\ufdd0\ufffd", Texts: Texts{Description: desc("<&>]]>_x0041_")}, OrganizationsSet: true,
		Organizations: []sdk.BusinessOrganization{{Code: "\ufdef", EntityType: "\U0010fffe"}}}}
	var buf bytes.Buffer
	if err := Write(&buf, FormatXLSX, recs); err != nil {
		t.Fatal(err)
	}
	back, err := Parse(&buf, FormatXLSX)
	if err != nil || len(back.Problems) > 0 || !sameRecords(recs, back.Records) {
		t.Fatalf("%v %v %q", err, back.Problems, printRecords(back.Records))
	}
}

// A record that apply would refuse to read back is refused in every
// format, by its code, its field and the character, before any of it is
// written: a control character (tabs and line breaks too), a code longer
// than the spec's, text that is not UTF-8.
func TestWritersRefuseWhatApplyRefuses(t *testing.T) {
	desc := func(s string) *string { return &s }
	for _, tt := range []struct {
		rec  Record
		want string
	}{
		{Record{Code: "U-1", Texts: Texts{Description: desc("a\x01b")}}, `the element "U-1": its description holds the control character U+0001`},
		{Record{Code: "U-1", Texts: Texts{Description: desc("a\tb\nc")}}, `the element "U-1": its description holds the control character U+0009`},
		{Record{Code: "U-2\x1b[31m"}, `the element "U-2\x1b[31m": its wbsElementCode holds the control character U+001B`},
		{Record{Code: "U-3", OrganizationsSet: true, Organizations: []sdk.BusinessOrganization{{Code: "1", EntityType: "comp\u0085any"}}},
			`the element "U-3": its businessOrganizations[0].entityType holds the control character U+0085`},
		{Record{Code: strings.Repeat("x", 31)}, `its wbsElementCode is 31 characters long (limit: 1 to 30 characters)`},
		{Record{Code: "U-4", Texts: Texts{Description: desc("a\xffb")}}, `the element "U-4": its description holds the byte 0xff, which is not UTF-8`},
		{Record{Code: "U-5", OrganizationsSet: true, Organizations: []sdk.BusinessOrganization{{Code: "1", EntityType: ""}}},
			`the element "U-5": its businessOrganizations[0].entityType is empty`},
	} {
		for _, f := range []Format{FormatCSV, FormatJSON, FormatNDJSON, FormatYAML, FormatXLSX} {
			var buf bytes.Buffer
			w, err := NewRecordWriter(&buf, f)
			if err != nil {
				t.Fatal(err)
			}
			before := buf.Len()
			if err := w.Write(tt.rec); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s %q: %v, want %q", f, tt.rec.Code, err, tt.want)
			}
			if buf.Len() != before {
				t.Errorf("%s %q: part of the record was written: %q", f, tt.rec.Code, buf.String())
			}
			w.Close()
		}
	}
}
