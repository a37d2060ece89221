package engine

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"hash/crc32"
	"io"
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
		if r.Code != w.code || deref(r.Description) != w.desc || (r.Description != nil) != w.descSet || active != w.active || r.Line != i+2 ||
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
		`WBS!E5: a cell right of the header's last column`,
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
		`'Plan 2024'!B2: description: is a date, not text: format the column as text and type the value again`,
		`'Plan 2024'!B3: description: is a date, not text`,
		`'Plan 2024'!C4: isActive: is a date, not TRUE or FALSE`,
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
	t.Run("shared string out of range", func(t *testing.T) {
		data := rezip(t, streamedShared(t), func(name string, body []byte) []byte {
			if name == "xl/worksheets/sheet1.xml" {
				return bytes.Replace(body, []byte(`<v>2</v>`), []byte(`<v>99</v>`), 1)
			}
			return body
		})
		// excelize would read the cell as empty.
		file := parseXLSX(t, data, ReadOptions{})
		got := problems(file)
		if !strings.Contains(got, "the file: cannot be read as a workbook (.xlsx): the cell A2 of xl/worksheets/sheet1.xml refers to shared string 99, but the workbook holds 3: the file is damaged") || len(file.Records) != 0 {
			t.Fatal(got)
		}
	})
	t.Run("shared string out of range in a description", func(t *testing.T) {
		// Read as empty, the description would be cleared on the platform.
		data := rezip(t, workbook(t, "WBS", func(f *excelize.File, sheet string) {
			f.SetCellValue(sheet, "A1", "wbsElementCode")
			f.SetCellValue(sheet, "B1", "description")
			f.SetCellValue(sheet, "A2", "X-1")
			f.SetCellValue(sheet, "B2", "Site")
		}), func(name string, body []byte) []byte {
			if name == "xl/worksheets/sheet1.xml" {
				return bytes.Replace(body, []byte(`<v>3</v>`), []byte(`<v>4</v>`), 1)
			}
			return body
		})
		file := parseXLSX(t, data, ReadOptions{})
		got := problems(file)
		if !strings.Contains(got, "the cell B2 of xl/worksheets/sheet1.xml refers to shared string 4, but the workbook holds 4") || len(file.Records) != 0 {
			t.Fatal(got)
		}
	})
}

// withPart adds to a workbook a part holding body compressed, whose
// header says it unzips to size bytes.
func withPart(t *testing.T, data []byte, name string, size uint64, body []byte) []byte {
	t.Helper()
	var deflated bytes.Buffer
	fw, _ := flate.NewWriter(&deflated, flate.BestCompression)
	fw.Write(body)
	fw.Close()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range zr.File {
		if err := zw.Copy(f); err != nil {
			t.Fatal(err)
		}
	}
	w, err := zw.CreateRaw(&zip.FileHeader{Name: name, Method: zip.Deflate, CRC32: crc32.ChecksumIEEE(body),
		CompressedSize64: uint64(deflated.Len()), UncompressedSize64: size})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(deflated.Bytes())
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
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range zr.File {
		rc, _ := f.Open()
		body, _ := io.ReadAll(rc)
		rc.Close()
		w, _ := zw.Create(f.Name)
		w.Write(change(f.Name, body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
