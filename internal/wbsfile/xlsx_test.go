package wbsfile

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"fmt"
	"hash/crc32"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wbsctl/wbsctl/sdk"
	"github.com/xuri/excelize/v2"
)

// workbook builds a workbook in memory: build fills it, its first sheet
// named sheet.
func workbook(t testing.TB, sheet string, build func(f *excelize.File, sheet string)) []byte {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	if sheet != "Sheet1" {
		if err := f.SetSheetName("Sheet1", sheet); err != nil {
			t.Fatal(err)
		}
	}
	build(f, sheet)
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// streamed builds a workbook of one sheet, WBS, whose rows the stream
// writer writes, formulas with their cached values.
func streamed(t testing.TB, rows ...[]any) []byte {
	t.Helper()
	return workbook(t, "WBS", func(f *excelize.File, sheet string) {
		sw, err := f.NewStreamWriter(sheet)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range rows {
			cell, _ := excelize.CoordinatesToCellName(1, i+1)
			if err := sw.SetRow(cell, r); err != nil {
				t.Fatal(err)
			}
		}
		if err := sw.Flush(); err != nil {
			t.Fatal(err)
		}
	})
}

func parseXLSX(t *testing.T, data []byte, opts ReadOptions) *File {
	t.Helper()
	file, err := ParseWith(bytes.NewReader(data), FormatXLSX, opts)
	if err != nil {
		t.Fatal(err)
	}
	return file
}

func problems(f *File) string {
	var b strings.Builder
	for _, p := range f.Problems {
		b.WriteString(p.String() + "\n")
	}
	return b.String()
}

// A workbook as Excel or a script writes it applies exactly: a numeric
// code stays as typed, umlauts, '&' and empty cells, a formula's cached
// value, TRUE and FALSE.
func TestXLSXReadsCellsAsTheyShow(t *testing.T) {
	data := streamed(t,
		[]any{"wbsElementCode", "description", "isActive", "businessOrganizations"},
		[]any{1000, "Müller & Söhne", true, "company=1000;branch=B&1"},
		[]any{"P-2", nil, false, nil},
		[]any{"P-3", excelize.Cell{Formula: `"Bau"&"stelle"`, Value: "Baustelle"}, "TRUE", ""},
		[]any{1000.5, "", nil, "company=ÄÖÜ"},
	)
	file := parseXLSX(t, data, ReadOptions{})
	if len(file.Problems) > 0 {
		t.Fatal(problems(file))
	}
	want := []struct {
		code, desc string
		descSet    bool
		active     string
		orgs       []sdk.BusinessOrganization
	}{
		{"1000", "Müller & Söhne", true, "true", []sdk.BusinessOrganization{{Code: "1000", EntityType: "company"}, {Code: "B&1", EntityType: "branch"}}},
		{"P-2", "", true, "false", []sdk.BusinessOrganization{}},
		{"P-3", "Baustelle", true, "true", []sdk.BusinessOrganization{}},
		{"1000.5", "", true, "unstated", []sdk.BusinessOrganization{{Code: "ÄÖÜ", EntityType: "company"}}},
	}
	if len(file.Records) != len(want) {
		t.Fatalf("%d records: %+v", len(file.Records), file.Records)
	}
	for i, w := range want {
		r := file.Records[i]
		active := "unstated"
		if r.IsActive != nil {
			active = map[bool]string{true: "true", false: "false"}[*r.IsActive]
		}
		if r.Code != w.code || deref(r.Description) != w.desc || (r.Description != nil) != w.descSet || active != w.active || int(r.Line) != i+2 ||
			len(r.Organizations) != len(w.orgs) {
			t.Fatalf("record %d: %+v (description %q, active %s), want %+v", i, r, deref(r.Description), active, w)
		}
		for k, o := range w.orgs {
			if r.Organizations[k] != o {
				t.Fatalf("record %d: organizations %v, want %v", i, r.Organizations, w.orgs)
			}
		}
	}
}

// Every problem names the sheet and the cell, the field and the limit.
func TestXLSXProblemsNameTheCell(t *testing.T) {
	data := streamed(t,
		[]any{"wbsElementCode", "description", "isActive", "organizations"},
		[]any{"A-1", "ok", "TRUE", nil},
		[]any{"A-2", strings.Repeat("x", 101), "maybe", "company="},
		[]any{strings.Repeat("c", 31), nil, nil, nil},
		[]any{"A-1", "ok", "TRUE", nil, "stray"},
	)
	got := problems(parseXLSX(t, data, ReadOptions{}))
	for _, want := range []string{
		`WBS!B3 (code "A-2"): description: is 101 characters long (limit: at most 100 characters)`,
		`WBS!C3 (code "A-2"): isActive: "maybe" is not a boolean`,
		`WBS!D3 (code "A-2"): businessOrganizations: `,
		`WBS!A4 (code "ccccccccccccccccccccccccccccccc"): wbsElementCode: is 31 characters long (limit: 1 to 30 characters)`,
		`WBS!E5 (code "A-1"): a cell right of the header's last column`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in:\n%s", want, got)
		}
	}
}

// A repeated code names the cell of the first.
func TestXLSXDuplicateCodeNamesTheFirstCell(t *testing.T) {
	data := streamed(t,
		[]any{"description", "wbsElementCode"},
		[]any{"one", "A-1"},
		[]any{"two", "A-1"},
	)
	got := problems(parseXLSX(t, data, ReadOptions{}))
	if want := `WBS!B3 (code "A-1"): wbsElementCode: the same code is in WBS!B2`; !strings.Contains(got, want) {
		t.Fatalf("no %q in:\n%s", want, got)
	}
}

// A date where text belongs is refused, naming the cell: the spreadsheet
// took what was typed for a date. Numbers with a number format are read as
// they show.
func TestXLSXRefusesDates(t *testing.T) {
	data := workbook(t, "Plan 2024", func(f *excelize.File, sheet string) {
		custom := "dd.mm.yyyy"
		german, _ := f.NewStyle(&excelize.Style{CustomNumFmt: &custom})
		twoPlaces, _ := f.NewStyle(&excelize.Style{NumFmt: 2}) // 0.00
		for cell, v := range map[string]any{
			"A1": "wbsElementCode", "B1": "description", "C1": "isActive",
			"A2": "D-1", "B2": time.Date(2024, 1, 15, 0, 0, 0, 0, time.UTC),
			"A3": "D-2", "B3": 45306,
			"A4": "D-3", "B4": 12.5, "C4": time.Date(2024, 1, 15, 0, 0, 0, 0, time.UTC),
			"A5": "D-4", "B5": "2024-01-15",
		} {
			f.SetCellValue(sheet, cell, v)
		}
		f.SetCellStyle(sheet, "B3", "B3", german)
		f.SetCellStyle(sheet, "B4", "B4", twoPlaces)
	})
	file := parseXLSX(t, data, ReadOptions{})
	got := problems(file)
	for _, want := range []string{
		`'Plan 2024'!B2 (code "D-1"): description: is a date, not text: format the column as text and type the value again`,
		`'Plan 2024'!B3 (code "D-2"): description: is a date, not text`,
		`'Plan 2024'!C4 (code "D-3"): isActive: is a date, not TRUE or FALSE`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in:\n%s", want, got)
		}
	}
	if len(file.Problems) != 3 {
		t.Errorf("%d problems, want 3:\n%s", len(file.Problems), got)
	}
	// Text that looks like a date is text.
	if len(file.Records) != 1 || file.Records[0].Code != "D-4" || deref(file.Records[0].Description) != "2024-01-15" {
		t.Errorf("records %+v", file.Records)
	}
}

// --sheet picks a sheet; one the workbook does not have is refused, with
// the names it has.
func TestXLSXSheet(t *testing.T) {
	data := workbook(t, "Notes", func(f *excelize.File, _ string) {
		f.SetCellValue("Notes", "A1", "not a header")
		f.NewSheet("WBS")
		f.SetSheetRow("WBS", "A3", &[]any{"wbsElementCode", "isActive"})
		f.SetSheetRow("WBS", "A5", &[]any{"S-1", "FALSE"})
	})
	file := parseXLSX(t, data, ReadOptions{Sheet: "WBS"})
	if len(file.Problems) > 0 || len(file.Records) != 1 || file.Records[0].Code != "S-1" || file.Records[0].Line != 5 || *file.Records[0].IsActive {
		t.Fatalf("%+v\n%s", file.Records, problems(file))
	}
	first := problems(parseXLSX(t, data, ReadOptions{}))
	if !strings.Contains(first, "Notes!A1: not a header: unknown column") {
		t.Errorf("the first sheet is not the one read:\n%s", first)
	}
	missing := problems(parseXLSX(t, data, ReadOptions{Sheet: "Elements"}))
	if want := `the file: the workbook has no sheet "Elements" (its sheets: "Notes", "WBS")`; !strings.Contains(missing, want) {
		t.Errorf("no %q in:\n%s", want, missing)
	}
}

// Hostile workbooks are refused with a problem, within bounded memory.
func TestXLSXHostile(t *testing.T) {
	good := streamed(t, []any{"wbsElementCode"}, []any{"H-1"})
	t.Run("not a workbook", func(t *testing.T) {
		got := problems(parseXLSX(t, []byte("wbsElementCode\nH-1\n"), ReadOptions{}))
		if !strings.Contains(got, "cannot be read as a workbook (.xlsx): it is not a zip file") {
			t.Fatal(got)
		}
	})
	t.Run("zip bomb", func(t *testing.T) {
		// A part that says it unzips past the bound.
		data := withPart(t, good, "xl/media/bomb.bin", maxWorkbookBytes+1, bytes.Repeat([]byte{0}, 1<<20))
		got := problems(parseXLSX(t, data, ReadOptions{}))
		if !strings.Contains(got, "the file: cannot be read as a workbook (.xlsx): it unzips to more than 536870912 bytes") {
			t.Fatal(got)
		}
	})
	t.Run("zip bomb that lies about its size", func(t *testing.T) {
		// 64 MiB of zeros in a part that says it holds 1,000 bytes.
		data := withPart(t, good, "xl/media/bomb.bin", 1000, bytes.Repeat([]byte{0}, 64<<20))
		got := problems(parseXLSX(t, data, ReadOptions{}))
		if !strings.Contains(got, "the file: cannot be read as a workbook (.xlsx): the part xl/media/bomb.bin does not hold what it says: zip: not a valid zip file") {
			t.Fatal(got)
		}
	})
	// excelize would read such a cell as empty: in a description, that
	// would clear it on the platform.
	withDescription := workbook(t, "WBS", func(f *excelize.File, sheet string) {
		f.SetCellValue(sheet, "A1", "wbsElementCode")
		f.SetCellValue(sheet, "B1", "description")
		f.SetCellValue(sheet, "A2", "X-1")
		f.SetCellValue(sheet, "B2", "Site")
	})
	for _, tt := range []struct {
		name     string
		data     []byte
		from, to string
		want     string
	}{
		{"shared string out of range", streamedShared(t), `<v>2</v>`, `<v>99</v>`, "WBS!A2: refers to shared string 99, but the workbook holds 3: the file is damaged"},
		{"shared string out of range in a description", withDescription, `<v>3</v>`, `<v>4</v>`, "WBS!B2: refers to shared string 4, but the workbook holds 4"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			data := rezip(t, tt.data, func(name string, body []byte) []byte {
				if name == "xl/worksheets/sheet1.xml" {
					return bytes.Replace(body, []byte(tt.from), []byte(tt.to), 1)
				}
				return body
			})
			file := parseXLSX(t, data, ReadOptions{})
			if got := problems(file); !strings.Contains(got, tt.want) || len(file.Records) != 0 {
				t.Fatal(got)
			}
		})
	}
}

// withPart adds to a workbook a part holding body compressed, whose
// header says it unzips to size bytes.
func withPart(t *testing.T, data []byte, name string, size uint64, body []byte) []byte {
	t.Helper()
	var deflated bytes.Buffer
	fw, _ := flate.NewWriter(&deflated, flate.BestCompression)
	fw.Write(body)
	fw.Close()
	return copyZip(t, data, func(zw *zip.Writer, f *zip.File) error { return zw.Copy(f) }, func(zw *zip.Writer) error {
		w, err := zw.CreateRaw(&zip.FileHeader{Name: name, Method: zip.Deflate, CRC32: crc32.ChecksumIEEE(body),
			CompressedSize64: uint64(deflated.Len()), UncompressedSize64: size})
		if err != nil {
			return err
		}
		_, err = w.Write(deflated.Bytes())
		return err
	})
}

// addPart adds a part to a workbook.
func addPart(t *testing.T, data []byte, name string, body []byte) []byte {
	return withPart(t, data, name, uint64(len(body)), body)
}

// copyZip copies a workbook: part writes each of its parts to the copy,
// then more adds what it will.
func copyZip(t testing.TB, data []byte, part func(zw *zip.Writer, f *zip.File) error, more func(zw *zip.Writer) error) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range zr.File {
		if err := part(zw, f); err != nil {
			t.Fatal(err)
		}
	}
	if err := more(zw); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// streamedShared is a workbook whose strings are shared: header
// wbsElementCode (index 0) and isActive (1), and a row with the code X-1
// (index 2) and TRUE.
func streamedShared(t *testing.T) []byte {
	return workbook(t, "WBS", func(f *excelize.File, sheet string) {
		f.SetCellValue(sheet, "A1", "wbsElementCode")
		f.SetCellValue(sheet, "B1", "isActive")
		f.SetCellValue(sheet, "A2", "X-1")
		f.SetCellValue(sheet, "B2", true)
	})
}

// rezip copies a workbook, changing the body of each part with change.
func rezip(t testing.TB, data []byte, change func(name string, body []byte) []byte) []byte {
	return rezipWith(t, data, func(name string) string { return name }, change)
}

// rezipNamed copies a workbook, renaming its parts with rename.
func rezipNamed(t testing.TB, data []byte, rename func(name string) string) []byte {
	return rezipWith(t, data, rename, func(_ string, body []byte) []byte { return body })
}

func rezipWith(t testing.TB, data []byte, rename func(string) string, change func(name string, body []byte) []byte) []byte {
	t.Helper()
	return copyZip(t, data, func(zw *zip.Writer, f *zip.File) error {
		rc, err := f.Open()
		if err != nil {
			return err
		}
		body, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return err
		}
		w, err := zw.Create(rename(f.Name))
		if err != nil {
			return err
		}
		_, err = w.Write(change(f.Name, body))
		return err
	}, func(*zip.Writer) error { return nil })
}

// sheetXML is a sheet part of the given rows' XML.
func sheetXML(rows string) []byte {
	return []byte(`<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>` + rows + `</sheetData></worksheet>`)
}

// inline is a row of inline strings.
func inline(row int, cells ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<row r="%d">`, row)
	for i, c := range cells {
		name, _ := excelize.CoordinatesToCellName(i+1, row)
		fmt.Fprintf(&b, `<c r="%s" t="inlineStr"><is><t>%s</t></is></c>`, name, c)
	}
	return b.String() + `</row>`
}

// withSheet is a two-column workbook (wbsElementCode, description; a row
// X-1, "Site") whose sheet part is replaced by sheet.
func withSheet(t *testing.T, sheet []byte) []byte {
	base := streamed(t, []any{"wbsElementCode", "description"}, []any{"X-1", "Site"})
	return rezip(t, base, func(name string, body []byte) []byte {
		if name == "xl/worksheets/sheet1.xml" {
			return sheet
		}
		return body
	})
}

// A cell excelize would read other than the file holds it is refused,
// named by sheet and cell: read as empty, a formula never calculated
// would clear a description; an error or a date would be sent as text; a
// repeated cell would shift the row's values.
func TestXLSXCellsReadOtherwiseAreRefused(t *testing.T) {
	header := inline(1, "wbsElementCode", "description")
	for _, tt := range []struct {
		name, row2, want string
	}{
		{"formula never calculated", `<row r="2"><c r="A2" t="inlineStr"><is><t>X-1</t></is></c><c r="B2"><f>CONCAT("a","b")</f></c></row>`,
			"WBS!B2: holds a formula whose value was never calculated: open the workbook in a spreadsheet and save it"},
		{"a formula's error", `<row r="2"><c r="A2" t="inlineStr"><is><t>X-1</t></is></c><c r="B2" t="e"><f>VLOOKUP(1,C:C,1)</f><v>#N/A</v></c></row>`,
			"WBS!B2: holds the error #N/A of a formula"},
		{"a date stored as such", `<row r="2"><c r="A2" t="inlineStr"><is><t>X-1</t></is></c><c r="B2" t="d"><v>2024-01-15T00:00:00</v></c></row>`,
			"WBS!B2: is a date (2024-01-15T00:00:00), not text"},
		{"a cell given twice", `<row r="2"><c r="A2" t="inlineStr"><is><t>X-1</t></is></c><c r="A2" t="inlineStr"><is><t>other</t></is></c></row>`,
			"WBS!A2: comes after a cell right of it, or of the same column, in its row: the file is damaged"},
		{"a row given twice", inline(2, "X-1", "Site") + inline(2, "X-2", "Other"),
			"WBS!A2: row 2 comes after row 2: the file is damaged"},
		{"a formula's value empty", `<row r="2"><c r="A2" t="inlineStr"><is><t>X-1</t></is></c><c r="B2"><f>A2&amp;"x"</f><v/></c></row>`,
			"WBS!B2: holds a formula whose value was never calculated"},
		{"a formula's value inside an inline string", `<row r="2"><c r="A2" t="inlineStr"><is><t>X-1</t></is></c><c r="B2"><f>1+1</f><is><v>2</v></is></c></row>`,
			"WBS!B2: holds a formula whose value was never calculated"},
		{"a number with spaces", `<row r="2"><c r="A2"><v> 4242 </v></c></row>`,
			`WBS!A2: holds " 4242 ", which a spreadsheet does not show as a number`},
		{"a negative zero", `<row r="2"><c r="A2"><v>-0</v></c></row>`, `WBS!A2: holds "-0"`},
		{"not a number", `<row r="2"><c r="A2" t="n"><v>NaN</v></c></row>`, `WBS!A2: holds "NaN"`},
		{"a boolean neither 0 nor 1", `<row r="2"><c r="A2" t="inlineStr"><is><t>X-1</t></is></c><c r="B2" t="b"><v>2</v></c></row>`,
			`WBS!B2: holds "2", which is not a boolean (0 or 1)`},
		{"a type no spreadsheet writes", `<row r="2"><c r="A2" t="E"><v>#REF!</v></c></row>`, `WBS!A2: has the type "E"`},
		{"a type given twice", `<row r="2"><c r="A2" t="inlineStr" t="e"><is><t>#REF!</t></is></c></row>`,
			"WBS!A2: a c element gives an attribute twice"},
		{"a cell named in another row", `<row r="2"><c r="A9" t="inlineStr"><is><t>X-1</t></is></c></row>`,
			"WBS!A2: is named A9 in row 2"},
		{"a row of another namespace", `<z:row xmlns:z="urn:example" r="2"><c r="A2" t="inlineStr"><is><t>X-1</t></is></c></z:row>`,
			"holds the element z:row of another namespace"},
		{"a row past the sheet's last", inline(1048577, "X-1"), "WBS!A1048576: a row past the sheet's last"},
		{"an escaped character in a formula's text", `<row r="2"><c r="A2" t="inlineStr"><is><t>X-1</t></is></c><c r="B2" t="str"><f>A2&amp;"A"</f><v>X_x002D_1A</v></c></row>`,
			"WBS!B2: holds the escaped character _x002D_ in a formula's text"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			file := parseXLSX(t, withSheet(t, sheetXML(header+tt.row2)), ReadOptions{})
			got := problems(file)
			if !strings.Contains(got, tt.want) || len(file.Records) != 0 {
				t.Fatalf("got %d records and:\n%s\nwant %q", len(file.Records), got, tt.want)
			}
		})
	}
	t.Run("a formula calculated", func(t *testing.T) {
		file := parseXLSX(t, withSheet(t, sheetXML(header+`<row r="2"><c r="A2" t="inlineStr"><is><t>X-1</t></is></c><c r="B2" t="str"><f>CONCAT("a","b")</f><v>ab</v></c></row>`)), ReadOptions{})
		if len(file.Problems) != 0 || len(file.Records) != 1 || deref(file.Records[0].Description) != "ab" {
			t.Fatalf("%+v %s", file.Records, problems(file))
		}
	})
	t.Run("a header cell that is a date", func(t *testing.T) {
		data := workbook(t, "WBS", func(f *excelize.File, sheet string) {
			f.SetCellValue(sheet, "A1", "wbsElementCode")
			f.SetCellValue(sheet, "B1", time.Date(2024, 1, 15, 0, 0, 0, 0, time.UTC))
			f.SetCellValue(sheet, "A2", "X-1")
		})
		got := problems(parseXLSX(t, data, ReadOptions{}))
		if !strings.Contains(got, "WBS!B1: a header cell is a date, not a column's name") || strings.Contains(got, dateMarker) {
			t.Fatal(got)
		}
	})
}

// The checks find the parts as excelize does: a name with '\', a sheet
// wherever the workbook's relationships put it, shared strings in any
// case; and only the sheet read counts.
func TestXLSXPartsFoundAsExcelizeFindsThem(t *testing.T) {
	outOfRange := `<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row><row r="2"><c r="A2" t="s"><v>2</v></c><c r="B2" t="s"><v>7</v></c></row>`
	base := workbook(t, "WBS", func(f *excelize.File, sheet string) {
		f.SetCellValue(sheet, "A1", "wbsElementCode")
		f.SetCellValue(sheet, "B1", "description")
		f.SetCellValue(sheet, "A2", "X-1")
		f.SetCellValue(sheet, "B2", "Site")
	})
	t.Run("a sheet named with backslashes", func(t *testing.T) {
		data := renamed(t, rezip(t, base, func(name string, body []byte) []byte {
			if name == "xl/worksheets/sheet1.xml" {
				return sheetXML(outOfRange)
			}
			return body
		}), map[string]string{"xl/worksheets/sheet1.xml": `xl\worksheets\sheet1.xml`})
		if got := problems(parseXLSX(t, data, ReadOptions{})); !strings.Contains(got, "WBS!B2: refers to shared string 7, but the workbook holds 4") {
			t.Fatal(got)
		}
	})
	t.Run("a sheet elsewhere", func(t *testing.T) {
		data := renamed(t, rezip(t, base, func(name string, body []byte) []byte {
			switch name {
			case "xl/worksheets/sheet1.xml":
				return sheetXML(outOfRange)
			case "xl/_rels/workbook.xml.rels":
				return bytes.Replace(body, []byte("worksheets/sheet1.xml"), []byte("data/wbs.xml"), 1)
			case "[Content_Types].xml":
				return bytes.Replace(body, []byte("/xl/worksheets/sheet1.xml"), []byte("/xl/data/wbs.xml"), 1)
			}
			return body
		}), map[string]string{"xl/worksheets/sheet1.xml": "xl/data/wbs.xml"})
		if got := problems(parseXLSX(t, data, ReadOptions{})); !strings.Contains(got, "WBS!B2: refers to shared string 7, but the workbook holds 4") {
			t.Fatal(got)
		}
	})
	t.Run("shared strings in another case", func(t *testing.T) {
		data := renamed(t, base, map[string]string{"xl/sharedStrings.xml": "xl/SharedStrings.xml"})
		file := parseXLSX(t, data, ReadOptions{})
		if len(file.Problems) != 0 || len(file.Records) != 1 || deref(file.Records[0].Description) != "Site" {
			t.Fatalf("%+v %s", file.Records, problems(file))
		}
	})
	t.Run("a fault in a sheet not read", func(t *testing.T) {
		data := workbook(t, "WBS", func(f *excelize.File, sheet string) {
			f.SetCellValue(sheet, "A1", "wbsElementCode")
			f.SetCellValue(sheet, "A2", "X-1")
			f.NewSheet("Notes")
			f.SetCellFormula("Notes", "A1", `CONCAT("a","b")`)
		})
		file := parseXLSX(t, data, ReadOptions{Sheet: "wbs"}) // a sheet's name in any case
		if len(file.Problems) != 0 || len(file.Records) != 1 {
			t.Fatalf("%+v %s", file.Records, problems(file))
		}
		if got := problems(parseXLSX(t, data, ReadOptions{Sheet: "Notes"})); !strings.Contains(got, "Notes!A1: holds a formula whose value was never calculated") {
			t.Fatal(got)
		}
	})
}

// renamed copies a workbook with parts renamed.
func renamed(t *testing.T, data []byte, names map[string]string) []byte {
	t.Helper()
	return rezipNamed(t, data, func(name string) string {
		if to, ok := names[name]; ok {
			return to
		}
		return name
	})
}

// What excelize would hold in memory is bounded before it opens the file:
// styles of millions of formats, a large part kept in memory.
func TestXLSXMemoryBounds(t *testing.T) {
	base := streamed(t, []any{"wbsElementCode"}, []any{"X-1"})
	t.Run("styles of a million formats", func(t *testing.T) {
		data := rezip(t, base, func(name string, body []byte) []byte {
			if name == "xl/styles.xml" {
				return []byte(`<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><cellXfs>` + strings.Repeat(`<xf numFmtId="14"/>`, 1_000_000) + `</cellXfs></styleSheet>`)
			}
			return body
		})
		if got := problems(parseXLSX(t, data, ReadOptions{})); !strings.Contains(got, "the file: cannot be read as a workbook (.xlsx): the part xl/styles.xml holds more than 500000 XML elements") {
			t.Fatal(got)
		}
	})
	t.Run("a large part held in memory", func(t *testing.T) {
		data := withPart(t, base, "xl/media/image1.bin", 130<<20, bytes.Repeat([]byte{0}, 130<<20))
		if got := problems(parseXLSX(t, data, ReadOptions{})); !strings.Contains(got, "its parts held in memory unzip to more than 134217728 bytes") {
			t.Fatal(got)
		}
	})
}

func TestUnshownFormats(t *testing.T) {
	for code, want := range map[string]bool{
		"General": false, "0": false, "0.00": false, "#,##0": false, "00000": false, "@": false,
		`"P-"0`: false, "[Red]0.00": false, "[$-407]#,##0.00": false, "0%": false, "0.00E+00": false,
		`0 "m."`: false, `_-* #,##0_-;-* #,##0_-;_-* "-"_-;_-@_-`: false, ";;;": false,
		"[<0]0;0.0": true, "[>99999]0;yyyy-mm-dd": true, "[=1]0": true,
		"##0.0E+0": true, "#E+0": true, "0.": true, "#,##0.": true,
	} {
		if got := unshownFormat(code); got != want {
			t.Errorf("unshownFormat(%q) = %v, want %v", code, got, want)
		}
	}
}

// Where a workbook could be read two ways, by the checks and by excelize or
// a spreadsheet, it is refused, or read as a spreadsheet reads it.
func TestXLSXAmbiguousWorkbooksAreRefused(t *testing.T) {
	header := inline(1, "wbsElementCode", "description")
	bad := sheetXML(header + `<row r="2"><c r="A2" t="inlineStr"><is><t>X-1</t></is></c><c r="B2"><f>1+1</f></c></row>`)
	good := sheetXML(header + inline(2, "X-1", "Site"))
	base := withSheet(t, good)
	change := func(name string, body []byte, parts map[string]func([]byte) []byte) []byte {
		if f, ok := parts[name]; ok {
			return f(body)
		}
		return body
	}
	replace := func(old, new string) func([]byte) []byte {
		return func(b []byte) []byte { return bytes.Replace(b, []byte(old), []byte(new), 1) }
	}
	for _, tt := range []struct {
		name string
		data []byte
		want string
	}{
		{"two parts whose names differ in case", withPart(t, rezip(t, base, func(name string, body []byte) []byte {
			return change(name, body, map[string]func([]byte) []byte{"xl/worksheets/sheet1.xml": func([]byte) []byte { return bad }})
		}), "xl/worksheets/SHEET1.xml", uint64(len(good)), good), "it holds two parts named xl/worksheets/SHEET1.xml"},
		{"two sheets of one name", rezip(t, base, func(name string, body []byte) []byte {
			return change(name, body, map[string]func([]byte) []byte{"xl/workbook.xml": replace(`</sheets>`, `<sheet name="wbs" sheetId="2" r:id="rId1"/></sheets>`)})
		}), `it names two sheets "WBS" and "wbs"`},
		{"a sheet part not named .xml", renamed(t, rezip(t, base, func(name string, body []byte) []byte {
			return change(name, body, map[string]func([]byte) []byte{
				"xl/worksheets/sheet1.xml":   func([]byte) []byte { return bad },
				"xl/_rels/workbook.xml.rels": replace("worksheets/sheet1.xml", "worksheets/sheet1.bin"),
				"[Content_Types].xml":        replace("/xl/worksheets/sheet1.xml", "/xl/worksheets/sheet1.bin"),
			})
		}), map[string]string{"xl/worksheets/sheet1.xml": "xl/worksheets/sheet1.bin"}), "WBS!B2: holds a formula whose value was never calculated"},
		{"a workbook part the package names elsewhere", renamed(t, rezip(t, base, func(name string, body []byte) []byte {
			return change(name, body, map[string]func([]byte) []byte{
				"xl/worksheets/sheet1.xml": func([]byte) []byte { return bad },
				"_rels/.rels":              replace("xl/workbook.xml", "xl/book.xml"),
				"[Content_Types].xml":      replace("/xl/workbook.xml", "/xl/book.xml"),
			})
		}), map[string]string{"xl/workbook.xml": "xl/book.xml", "xl/_rels/workbook.xml.rels": "xl/_rels/book.xml.rels"}),
			"WBS!B2: holds a formula whose value was never calculated"},
		{"a row outside the sheet's data", rezip(t, base, func(name string, body []byte) []byte {
			return change(name, body, map[string]func([]byte) []byte{"xl/worksheets/sheet1.xml": replace("<sheetData>", inline(3, "X-2")+"<sheetData>")})
		}), "a row outside the sheet's data"},
		{"a sheet part with a byte before its root", rezip(t, base, func(name string, body []byte) []byte {
			return change(name, body, map[string]func([]byte) []byte{"xl/worksheets/sheet1.xml": func([]byte) []byte {
				return append([]byte("x"), bytes.TrimPrefix(bad, []byte(`<?xml version="1.0" encoding="UTF-8"?>`))...)
			}})
		}), "WBS!B2: holds a formula whose value was never calculated"},
		{"a sheet part in another encoding", rezip(t, base, func(name string, body []byte) []byte {
			return change(name, body, map[string]func([]byte) []byte{"xl/worksheets/sheet1.xml": func([]byte) []byte {
				return bytes.Replace(bad, []byte(`encoding="UTF-8"`), []byte(`encoding="windows-1252"`), 1)
			}})
		}), "WBS!B2: holds a formula whose value was never calculated"},
		{"a cell inside a cell", rezip(t, base, func(name string, body []byte) []byte {
			return change(name, body, map[string]func([]byte) []byte{"xl/worksheets/sheet1.xml": func([]byte) []byte {
				return sheetXML(header + `<row r="2"><c r="A2" t="inlineStr"><is><t>X-1</t></is></c><c r="B2"><f>1+1</f><x><c r="C2" t="str"><v>x</v></c></x></c></row>`)
			}})
		}), "WBS!B2: holds a cell inside a cell"},
		{"sheets alike but for case folding", rezip(t, base, func(name string, body []byte) []byte {
			return change(name, body, map[string]func([]byte) []byte{"xl/workbook.xml": func(b []byte) []byte {
				b = bytes.Replace(b, []byte(`name="WBS"`), []byte(`name="ſ"`), 1)
				return bytes.Replace(b, []byte(`</sheets>`), []byte(`<sheet name="s" sheetId="2" r:id="rId1"/></sheets>`), 1)
			}})
		}), `it names two sheets "ſ" and "s"`},
		{"a workbook part of a relationship of another type", addPart(t, addPart(t, addPart(t, rezip(t, base, func(name string, body []byte) []byte {
			return change(name, body, map[string]func([]byte) []byte{
				"xl/worksheets/sheet1.xml": func([]byte) []byte { return bad },
				"_rels/.rels":              replace(`<Relationship `, `<Relationship Id="rDecoy" Type="urn:example/officeDocument" Target="decoy/workbook.xml"/><Relationship `),
			})
		}), "decoy/workbook.xml", []byte(`<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="WBS" sheetId="1" r:id="rId1"/></sheets></workbook>`)),
			"decoy/_rels/workbook.xml.rels", []byte(`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="sheet1.xml"/></Relationships>`)),
			"decoy/sheet1.xml", good), "WBS!B2: holds a formula whose value was never calculated"},
		{"a text longer than any cell", rezip(t, base, func(name string, body []byte) []byte {
			return change(name, body, map[string]func([]byte) []byte{"xl/worksheets/sheet1.xml": func([]byte) []byte {
				return sheetXML(header + inline(2, "X-1", strings.Repeat("x", maxTextRun+1)))
			}})
		}), "holds a text of more than 327670 bytes between two tags"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			file := parseXLSX(t, tt.data, ReadOptions{})
			if got := problems(file); !strings.Contains(got, tt.want) || len(file.Records) != 0 {
				t.Fatalf("got %d records and:\n%s\nwant %q", len(file.Records), got, tt.want)
			}
		})
	}
	t.Run("a long text in a part not read", func(t *testing.T) {
		svg := []byte(`<svg xmlns="http://www.w3.org/2000/svg"><image href="data:image/png;base64,` + strings.Repeat("A", maxTextRun+1) + `"/></svg>`)
		file := parseXLSX(t, addPart(t, base, "xl/media/image1.svg", svg), ReadOptions{})
		if len(file.Problems) != 0 || len(file.Records) != 1 {
			t.Fatalf("%+v %s", file.Records, problems(file))
		}
	})
	t.Run("shared strings nested deeper than the list", func(t *testing.T) {
		data := workbook(t, "WBS", func(f *excelize.File, sheet string) {
			f.SetCellValue(sheet, "A1", "wbsElementCode")
			f.SetCellValue(sheet, "B1", "description")
			f.SetCellValue(sheet, "A2", "X-1")
			f.SetCellValue(sheet, "B2", "Site")
		})
		data = rezip(t, data, func(name string, body []byte) []byte {
			switch name {
			case "xl/worksheets/sheet1.xml":
				return bytes.Replace(body, []byte(`<c r="B2" t="s"><v>3</v></c>`), []byte(`<c r="B2" t="s"><v>6</v></c>`), 1)
			case "xl/sharedStrings.xml":
				return bytes.Replace(body, []byte(`</sst>`), []byte(`<extLst><ext uri="x"><si><t>a</t></si><si><t>b</t></si><si><t>c</t></si></ext></extLst></sst>`), 1)
			}
			return body
		})
		if got := problems(parseXLSX(t, data, ReadOptions{})); !strings.Contains(got, "WBS!B2: refers to shared string 6, but the workbook holds 4") {
			t.Fatal(got)
		}
	})
	t.Run("numbers in formats excelize shows otherwise", func(t *testing.T) {
		for code, shown := range map[string]bool{"[<0]0;0.0": false, "##0.0E+0": false, "0.": false, "00000": true} {
			data := workbook(t, "WBS", func(f *excelize.File, sheet string) {
				f.SetCellValue(sheet, "A1", "wbsElementCode")
				f.SetCellValue(sheet, "A2", 42)
				style, err := f.NewStyle(&excelize.Style{CustomNumFmt: &code})
				if err != nil {
					t.Fatal(err)
				}
				f.SetCellStyle(sheet, "A2", "A2", style)
			})
			file := parseXLSX(t, data, ReadOptions{})
			got := problems(file)
			if refused := strings.Contains(got, "WBS!A2: wbsElementCode: is a number in a format wbsctl cannot show"); refused == shown {
				t.Errorf("%q: %d records and %s", code, len(file.Records), got)
			}
			if shown && (len(file.Records) != 1 || file.Records[0].Code != "00042") {
				t.Errorf("%q reads %+v", code, file.Records)
			}
		}
	})
}

func TestEscapedChar(t *testing.T) {
	for value, want := range map[string]string{
		"": "", "plain": "", "_x": "", "a_x00": "", "_x12G4_": "", "a_x_x000D_b": "_x000D_", "_x000d_": "_x000d_", "x_x00410": "",
	} {
		if got := escapedChar([]byte(value)); got != want {
			t.Errorf("escapedChar(%q) = %q, want %q", value, got, want)
		}
	}
}

// The shared strings and the styles are read where the workbook's
// relationships name them, as a spreadsheet reads them, or the workbook
// is refused: a decoy under the usual name beside the part the
// relationships name could otherwise have its text planned, and a styles
// part no relationship names could turn a 0.00 format into a plain
// number.
func TestXLSXPartsOnlyWhereTheRelationshipsNameThem(t *testing.T) {
	base := streamedShared(t)
	if f := parseXLSX(t, base, ReadOptions{}); len(f.Problems) != 0 || len(f.Records) != 1 {
		t.Fatalf("the workbook itself: %s", problems(f))
	}
	moved := func(kind, to string, decoy bool) []byte {
		data := rezipWith(t, base, func(name string) string {
			if strings.EqualFold(name, "xl/"+kind+".xml") {
				return "xl/" + to
			}
			return name
		}, func(name string, body []byte) []byte {
			if name == "xl/_rels/workbook.xml.rels" {
				return regexp.MustCompile(`Target="[^"]*`+kind+`.xml"`).ReplaceAll(body, []byte(`Target="`+to+`"`))
			}
			return body
		})
		if decoy {
			data = addPart(t, data, "xl/"+kind+".xml", []byte(`<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="4" uniqueCount="4"><si><t>wbsElementCode</t></si><si><t>isActive</t></si><si><t>DECOY</t></si><si><t>x</t></si></sst>`))
		}
		return data
	}
	unnamed := rezip(t, base, func(name string, body []byte) []byte {
		if name == "xl/_rels/workbook.xml.rels" {
			return regexp.MustCompile(`<Relationship [^>]*relationships/styles"[^>]*>(</Relationship>)?`).ReplaceAll(body, nil)
		}
		return body
	})
	for _, tt := range []struct {
		name string
		data []byte
		want string
	}{
		{"shared strings elsewhere, a decoy under the usual name", moved("sharedStrings", "strings.xml", true),
			"its relationships name xl/strings.xml for its shared strings, beside a part xl/sharedstrings.xml that a spreadsheet does not read: the file could be read two ways"},
		{"shared strings elsewhere", moved("sharedStrings", "strings.xml", false),
			"it keeps its shared strings in xl/strings.xml, where this reader does not look"},
		{"styles elsewhere, a decoy under the usual name", moved("styles", "st.xml", true),
			"its relationships name xl/st.xml for its styles, beside a part xl/styles.xml"},
		{"styles in other capitals", rezipWith(t, base, func(name string) string {
			if name == "xl/styles.xml" {
				return "xl/Styles.xml"
			}
			return name
		}, func(name string, body []byte) []byte {
			if name == "xl/_rels/workbook.xml.rels" {
				return bytes.ReplaceAll(body, []byte(`Target="styles.xml"`), []byte(`Target="Styles.xml"`))
			}
			return body
		}), "its styles are in xl/Styles.xml, where this reader, which looks for xl/styles.xml, would not find them"},
		{"a styles part no relationship names", unnamed,
			"its relationships name no part for its styles, so a spreadsheet does not read the part xl/styles.xml"},
	} {
		f := parseXLSX(t, tt.data, ReadOptions{})
		if len(f.Records) != 0 || !strings.Contains(problems(f), tt.want) {
			t.Errorf("%s: %d records, problems:\n%s\nwant %q", tt.name, len(f.Records), problems(f), tt.want)
		}
	}
}

// A hidden first sheet is not the one applied: a spreadsheet opens on the
// first visible sheet, and that one is read, unless --sheet names the
// hidden one. Hidden rows are read, as the file holds them, and a note
// names them.
func TestXLSXHiddenSheetsAndRows(t *testing.T) {
	for _, state := range []string{"hidden", "veryHidden"} {
		data := workbook(t, "Old", func(f *excelize.File, _ string) {
			f.SetSheetRow("Old", "A1", &[]any{"wbsElementCode", "description"})
			f.SetSheetRow("Old", "A2", &[]any{"S-1", "old"})
			f.NewSheet("WBS")
			f.SetSheetRow("WBS", "A1", &[]any{"wbsElementCode", "description"})
			f.SetSheetRow("WBS", "A2", &[]any{"S-1", "new"})
			f.SetActiveSheet(1)
		})
		data = rezip(t, data, func(name string, body []byte) []byte {
			if name == "xl/workbook.xml" {
				return bytes.Replace(body, []byte(`<sheet name="Old"`), []byte(`<sheet name="Old" state="`+state+`"`), 1)
			}
			return body
		})
		f := parseXLSX(t, data, ReadOptions{})
		if len(f.Problems) != 0 || len(f.Records) != 1 || *f.Records[0].Description != "new" {
			t.Errorf("%s first sheet: %+v\n%s", state, f.Records, problems(f))
		}
		f = parseXLSX(t, data, ReadOptions{Sheet: "old"})
		if len(f.Problems) != 0 || len(f.Records) != 1 || *f.Records[0].Description != "old" {
			t.Errorf("%s sheet named by --sheet: %+v\n%s", state, f.Records, problems(f))
		}
	}

	// The pre-scan and the reader take the same sheet: a state other
	// than visible hides it; a long name does not, and the sheet it
	// names, which the library cannot read, is refused rather than
	// passed over for the next.
	for state, want := range map[string]string{`state="bogus"`: "new", `x:state="hidden" xmlns:x="urn:x"`: "new", ``: ""} {
		data := workbook(t, "Old", func(f *excelize.File, _ string) {
			f.SetSheetRow("Old", "A1", &[]any{"wbsElementCode", "description"})
			f.SetSheetRow("Old", "A2", &[]any{"S-1", "old"})
			f.NewSheet("WBS")
			f.SetSheetRow("WBS", "A1", &[]any{"wbsElementCode", "description"})
			f.SetSheetRow("WBS", "A2", &[]any{"S-1", "new"})
		})
		long := "Old sheet of a name longer than thirty-one"
		data = rezip(t, data, func(name string, body []byte) []byte {
			if name == "xl/workbook.xml" {
				return bytes.Replace(body, []byte(`<sheet name="Old"`), []byte(`<sheet name="`+long+`" `+state), 1)
			}
			return body
		})
		f := parseXLSX(t, data, ReadOptions{})
		switch {
		case want == "" && (len(f.Records) != 0 || !strings.Contains(problems(f), `cannot read the sheet "`+long+`"`)):
			t.Errorf("first sheet of a long name: %+v\n%s", f.Records, problems(f))
		case want != "" && (len(f.Problems) != 0 || len(f.Records) != 1 || *f.Records[0].Description != want):
			t.Errorf("first sheet %q: %+v\n%s", state, f.Records, problems(f))
		}
	}

	data := workbook(t, "WBS", func(f *excelize.File, sheet string) {
		f.SetSheetRow(sheet, "A1", &[]any{"wbsElementCode", "description"})
		for i := 2; i <= 14; i++ {
			f.SetSheetRow(sheet, fmt.Sprintf("A%d", i), &[]any{fmt.Sprintf("R-%d", i), "row"})
			if i%2 == 0 {
				f.SetRowVisible(sheet, i, false)
			}
		}
	})
	f := parseXLSX(t, data, ReadOptions{})
	want := "WBS: 7 rows are hidden in the workbook (2, 4, 6, 8, 10, 12, 14), and read all the same"
	if len(f.Problems) != 0 || len(f.Records) != 13 || len(f.Notes) != 1 || f.Notes[0] != want {
		t.Fatalf("%d records, notes %q\n%s", len(f.Records), f.Notes, problems(f))
	}
}

// A cell is read as a spreadsheet shows it, or refused naming it: half of
// a character escaped as Excel writes an emoji (excelize drops it), a
// format that hides the value (;;;), a number spreadsheets each show their
// own way (past 15 digits, or far below 1).
func TestXLSXCellsShownOtherwiseAreRefused(t *testing.T) {
	one := func(value any, style string, change func(name string, body []byte) []byte) []byte {
		data := workbook(t, "WBS", func(f *excelize.File, sheet string) {
			f.SetSheetRow(sheet, "A1", &[]any{"wbsElementCode", "description"})
			f.SetSheetRow(sheet, "A2", &[]any{"A-1", value})
			if style != "" {
				st, err := f.NewStyle(&excelize.Style{CustomNumFmt: &style})
				if err != nil {
					t.Fatal(err)
				}
				f.SetCellStyle(sheet, "B2", "B2", st)
			}
		})
		if change != nil {
			data = rezip(t, data, change)
		}
		return data
	}
	surrogate := func(with string) func(string, []byte) []byte {
		return func(name string, body []byte) []byte {
			if name == "xl/sharedStrings.xml" || name == "xl/worksheets/sheet1.xml" {
				return bytes.ReplaceAll(body, []byte("SURR"), []byte(with))
			}
			return body
		}
	}
	inlineSurrogate := withSheet(t, sheetXML(inline(1, "wbsElementCode", "description")+inline(2, "A-1", "_xD83D__xDE00_ smile")))
	// Split over two runs, or around a comment, as excelize joins them.
	split := func(with string) func(string, []byte) []byte {
		return func(name string, body []byte) []byte {
			if name == "xl/sharedStrings.xml" {
				return bytes.ReplaceAll(body, []byte("<t>SURR</t>"), []byte(with))
			}
			return body
		}
	}
	// Many unused halves before the one a cell uses.
	many := func(name string, body []byte) []byte {
		if name != "xl/sharedStrings.xml" {
			return body
		}
		decoys := strings.Repeat("<si><t>_xD800_</t></si>", 1001)
		return bytes.Replace(bytes.ReplaceAll(body, []byte("SURR"), []byte("_xD83D__xDE00_")), []byte("<si>"), []byte(decoys+"<si>"), 1)
	}
	for _, tt := range []struct {
		name string
		data []byte
		want string // the problem, or "" for the description read
		read string
	}{
		{"an emoji escaped as a surrogate pair", one("SURR smile", "", surrogate("_xD83D__xDE00_")), "WBS!B2: holds _xD83D_, half of a character", ""},
		{"half of a character alone", one("SURR", "", surrogate("_xDE00_")), "WBS!B2: holds _xDE00_, half of a character", ""},
		{"an inline string with a surrogate pair", inlineSurrogate, "WBS!B2: holds _xD83D_, half of a character", ""},
		{"half of a character over two runs", one("SURR", "", split(`<r><t>_xD8</t></r><r><t>3D_</t></r>`)), "WBS!B2: holds _xD83D_, half of a character", ""},
		{"half of a character around a comment", one("SURR", "", split(`<t>_xD8<!-- -->3D_</t>`)), "WBS!B2: holds _xD83D_, half of a character", ""},
		{"more halves than are noted", one("SURR", "", many), "more than 1000 of its shared strings hold half of a character", ""},
		{"a character escaped whole", one("SURR smile", "", surrogate("_x00E4_")), "", "ä smile"},
		{"text under ;;;", one("hidden text", ";;;", nil), `WBS!B2 (code "A-1"): description: has a number format that hides its value`, ""},
		{"a number under ;;;", one(7, ";;;", nil), `WBS!B2 (code "A-1"): description: has a number format that hides its value`, ""},
		{"text under a format that replaces it", one("text", `0;-0;0;"n/a"`, nil), "hides its value", ""},
		{"text under a format with a text section", one("text", `0.00;-0.00;0.00;@`, nil), "", "text"},
		{"text under a format that hides numbers only", one("text", `;;;@`, nil), "", "text"},
		{"text under a date format", one("T-100", "yyyy-mm-dd", nil), "", "T-100"},
		{"a number under a format that hides zeros", one(5, `0;-0;;@`, nil), "", "5"},
		{"a number under a format of colours alone", one(5, `[Red];[Red];[Red]`, nil), "hides its value", ""},
		{"a number under padding alone", one(5, `_-;_-;_-`, nil), "hides its value", ""},
		{"1e20", one(1e20, "", nil), "WBS!B2: holds the number 100000000000000000000, which spreadsheets show rounded or in scientific notation", ""},
		{"twenty digits", one(12345678901234567890.0, "", nil), "WBS!B2: holds the number 12345678901234500000", ""},
		{"1E-11", one(1e-11, "", nil), "WBS!B2: holds the number 0.00000000001", ""},
		{"fifteen digits", one(123456789012345.0, "", nil), "", "123456789012345"},
		{"a tenth and two", one(0.1+0.2, "", nil), "", "0.3"},
		{"a formula whose value is a shared string", withSheet(t, sheetXML(inline(1, "wbsElementCode", "description")+
			`<row r="2"><c r="A2" t="inlineStr"><is><t>A-1</t></is></c><c r="B2" t="s"><f>1+1</f><v>0</v></c></row>`)),
			"WBS!B2: holds a formula whose value is a shared string", ""},
	} {
		f := parseXLSX(t, tt.data, ReadOptions{})
		got := problems(f)
		switch {
		case tt.want != "" && (len(f.Records) != 0 || !strings.Contains(got, tt.want)):
			t.Errorf("%s: %d records, problems:\n%s\nwant %q", tt.name, len(f.Records), got, tt.want)
		case tt.want == "" && (got != "" || len(f.Records) != 1 || *f.Records[0].Description != tt.read):
			t.Errorf("%s: %+v\n%s\nwant the description %q", tt.name, f.Records, got, tt.read)
		}
	}
}
