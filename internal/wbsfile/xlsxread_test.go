package wbsfile

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

// sheetRows reads the rows of the first sheet of a workbook with the
// reader, as the cells show.
func sheetRows(t *testing.T, data []byte) [][]string {
	t.Helper()
	wb, err := openWorkbook(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := wb.readParts(wb.sheets[0].part); err != nil {
		t.Fatal(err)
	}
	defer wb.styles.close()
	rc, err := wb.byName[wb.sheets[0].part].Open()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	var rows [][]string
	_, err = readSheet(rc, wb.sst, wb.styles, func(row int, cols []string, _ int64, bad error) {
		if bad != nil {
			t.Fatalf("row %d: %v", row, bad)
		}
		for len(rows) < row-1 {
			rows = append(rows, nil)
		}
		rows = append(rows, append([]string(nil), cols...))
	})
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// excelizeRows reads the rows of the first sheet of a workbook with
// excelize.
func excelizeRows(t *testing.T, data []byte) [][]string {
	t.Helper()
	f, err := excelize.OpenReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := f.GetRows(f.GetSheetList()[0])
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// The reader shows each cell as excelize shows it, number formats
// included, where neither refuses it: the workbooks of the tests, and
// numbers and text in the formats spreadsheets offer.
func TestSheetReadAsExcelizeShowsIt(t *testing.T) {
	books := map[string][]byte{}
	if saved, err := os.ReadFile("testdata/good/workbook.xlsx"); err == nil {
		books["testdata/good/workbook.xlsx"] = saved
	}
	books["streamed"] = streamed(t, []any{"wbsElementCode", "description", "isActive", "businessOrganizations"},
		[]any{1000, "Müller & Söhne", true, "company=1000;branch=B&1"},
		[]any{"P-3", excelize.Cell{Formula: `"Bau"&"stelle"`, Value: "Baustelle"}, "TRUE", ""},
		[]any{1000.5, "", nil, "company=ÄÖÜ"})
	books["formats"] = workbook(t, "WBS", func(f *excelize.File, sheet string) {
		values := []any{1000, 42, -42, 0, 0.1 + 0.2, 1234.5, 0.25, 123456789012345.0, 99999999999.0, 12345678901.0, 1e14, 2.5e-9, -0.5,
			"text", "P-1", "1000", "_x0041_ escaped", "  spaces  "}
		formats := []func() *excelize.Style{
			func() *excelize.Style { return &excelize.Style{Font: &excelize.Font{Bold: true}} }, // General
			func() *excelize.Style { return &excelize.Style{NumFmt: 1} },
			func() *excelize.Style { return &excelize.Style{NumFmt: 2} },
			func() *excelize.Style { return &excelize.Style{NumFmt: 3} },
			func() *excelize.Style { return &excelize.Style{NumFmt: 4} },
			func() *excelize.Style { return &excelize.Style{NumFmt: 9} },
			func() *excelize.Style { return &excelize.Style{NumFmt: 10} },
			func() *excelize.Style { return &excelize.Style{NumFmt: 11} },
			func() *excelize.Style { return &excelize.Style{NumFmt: 37} },
			func() *excelize.Style { return &excelize.Style{NumFmt: 44} },
			func() *excelize.Style { return &excelize.Style{NumFmt: 49} },
			func() *excelize.Style { code := "00000"; return &excelize.Style{CustomNumFmt: &code} },
			func() *excelize.Style { code := `"P-"0`; return &excelize.Style{CustomNumFmt: &code} },
			func() *excelize.Style {
				code := `0.00;-0.00;0.00;"text: "@`
				return &excelize.Style{CustomNumFmt: &code}
			},
			func() *excelize.Style { code := `[Red]0.00`; return &excelize.Style{CustomNumFmt: &code} },
		}
		for c, style := range formats {
			id, err := f.NewStyle(style())
			if err != nil {
				t.Fatal(err)
			}
			for r, v := range values {
				cell, _ := excelize.CoordinatesToCellName(c+1, r+1)
				f.SetCellValue(sheet, cell, v)
				f.SetCellStyle(sheet, cell, cell, id)
			}
		}
	})
	for name, data := range books {
		got, want := sheetRows(t, data), excelizeRows(t, data)
		if !reflect.DeepEqual(got, want) {
			for i := range max(len(got), len(want)) {
				var g, w []string
				if i < len(got) {
					g = got[i]
				}
				if i < len(want) {
					w = want[i]
				}
				if !reflect.DeepEqual(g, w) {
					t.Errorf("%s row %d:\n read %q\nexcelize %q", name, i+1, g, w)
				}
			}
		}
	}
}

// The XML a sheet part holds is read as encoding/xml reads it: references,
// CDATA, comments and line breaks; what is not well-formed is refused.
func TestSheetXML(t *testing.T) {
	header := inline(1, "wbsElementCode", "description")
	for _, tt := range []struct {
		name, row2, want, problem string
	}{
		{"references", `<row r="2"><c r="A2" t="inlineStr"><is><t>X-1</t></is></c><c r="B2" t="inlineStr"><is><t>a &amp; b &lt;&#x41;&#66;&gt; &quot;&apos;</t></is></c></row>`, `a & b <AB> "'`, ""},
		{"CDATA and a comment", `<row r="2"><c r="A2" t="inlineStr"><is><t>X-1</t></is></c><c r="B2" t="inlineStr"><is><t><![CDATA[a <b>]]><!-- c --> d</t></is></c></row>`, "a <b> d", ""},
		{"runs", `<row r="2"><c r="A2" t="inlineStr"><is><t>X-1</t></is></c><c r="B2" t="inlineStr"><is><r><t>a</t></r><r><rPr/><t>b</t></r><rPh><t>x</t></rPh></is></c></row>`, "ab", ""},
		{"an end tag that does not match", `<row r="2"><c r="A2" t="inlineStr"><is><t>X-1</t></is></c></rows>`, "", "its XML is not well-formed"},
		{"a reference XML does not have", `<row r="2"><c r="A2" t="inlineStr"><is><t>X&nbsp;1</t></is></c></row>`, "", "its XML is not well-formed"},
		{"a control character", "<row r=\"2\"><c r=\"A2\" t=\"inlineStr\"><is><t>X\x011</t></is></c></row>", "", "its XML is not well-formed"},
		{"a part cut short", `<row r="2"><c r="A2" t="inlineStr"><is><t>X-1</t>`, "", "its XML is not well-formed"},
		{"two sheetData elements", `</sheetData><sheetData>` + inline(2, "X-1", "b"), "", "holds two sheetData elements"},
		{"a hexadecimal number", `<row r="2"><c r="A2"><v>0x1p-2</v></c></row>`, "", `WBS!A2: holds "0x1p-2", which a spreadsheet does not show as a number`},
		{"a style that is not a number", `<row r="2"><c r="A2" s="x" t="inlineStr"><is><t>X-1</t></is></c></row>`, "", `WBS!A2: has the style "x"`},
		{"a style that is not a number, then a reference XML does not have", `<row r="2"><c r="A2" s="x" t="inlineStr"><is><t>X&nbsp;1</t></is></c></row>`, "", `WBS!A2: has the style "x"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			file := parseXLSX(t, withSheet(t, sheetXML(header+tt.row2)), ReadOptions{})
			got := problems(file)
			switch {
			case tt.problem != "" && (!strings.Contains(got, tt.problem) || len(file.Records) != 0):
				t.Fatalf("%d records and:\n%s\nwant %q", len(file.Records), got, tt.problem)
			case tt.problem == "" && (got != "" || len(file.Records) != 1 || deref(file.Records[0].Description) != tt.want):
				t.Fatalf("%+v\n%s\nwant the description %q", file.Records, got, tt.want)
			}
		})
	}
}

// A part's text runs are bounded wherever they fall in the buffer: a run
// just within the bound reads, one past it does not.
func TestSheetTextRunBound(t *testing.T) {
	header := inline(1, "wbsElementCode", "description")
	for _, n := range []int{maxTextRun - len("<t>") - 100, maxTextRun + 1} {
		long := strings.Repeat("x", n)
		file := parseXLSX(t, withSheet(t, sheetXML(header+inline(2, "X-1", long))), ReadOptions{})
		got := problems(file)
		if tooLong := strings.Contains(got, "holds a text of more than 327670 bytes"); tooLong != (n > maxTextRun) {
			t.Errorf("a text of %d bytes: %s", n, got)
		}
	}
}

// A cell read at once, its content and end in the buffer, is bounded as
// its tokens are: a text just within the bound reads, one past it does
// not.
func TestLeafContentRunBound(t *testing.T) {
	for _, n := range []int{maxTextRun - len("t>"), maxTextRun - len("t>") + 1} {
		sc := newXMLScanner(strings.NewReader(`<c><is><t>` + strings.Repeat("x", n) + `</t></is></c>`))
		sc.buf = make([]byte, 2*maxTextRun) // the whole cell at once
		if tok, err := sc.next(); tok != xmlStart || err != nil {
			t.Fatal(tok, err)
		}
		text, ok, err := sc.leafContent(nil, "<is><t>", "</t></is>")
		if tooLong := err == errTextTooLong; tooLong != (n > maxTextRun-len("t>")) || !tooLong && (!ok || len(text) != n) {
			t.Errorf("a text of %d bytes: read %v, %v", n, ok, err)
		}
	}
}

// A line break is read as "\n", however the part writes it.
func TestSheetLineBreaks(t *testing.T) {
	data := withSheet(t, sheetXML(inline(1, "wbsElementCode", "description")+
		"<row r=\"2\"><c r=\"A2\" t=\"inlineStr\"><is><t>X-1</t></is></c><c r=\"B2\" t=\"inlineStr\"><is><t>a\r\nb\rc\nd</t></is></c></row>"))
	if rows := sheetRows(t, data); len(rows) != 2 || len(rows[1]) != 2 || rows[1][1] != "a\nb\nc\nd" {
		t.Fatalf("%q", rows)
	}
}

// cellShapes is a row of cells in the shapes sheets hold them: those the
// reader reads at once (a value, an inline string of one text) and those
// it reads a token at a time. The shapes rotate through the columns, and
// a text of a length the row gives moves them through a buffer.
func cellShapes(row int) string {
	shapes := []string{
		`<c r="%[1]s" t="inlineStr"><is><t>X-%[2]d</t></is></c>`,
		`<c r="%[1]s" t="inlineStr"><is><t xml:space="preserve"> a %[2]d </t></is></c>`,
		`<c r="%[1]s" t="inlineStr"><is><t>a &amp; b &#x41; %[3]s</t></is></c>`,
		`<c r="%[1]s" t="inlineStr"><is><t><![CDATA[<x>]]>%[3]s</t></is></c>`,
		`<c r="%[1]s"><v>%[2]d</v></c>`,
		`<c r="%[1]s" t="b"><v>1</v></c>`,
		`<c r="%[1]s" t="inlineStr"><is><r><t>a</t></r><r><t>b%[3]s</t></r></is></c>`,
		`<c r="%[1]s" t="inlineStr"><is><t></t></is></c>`,
		`<c r="%[1]s"/>`,
		`<c r="%[1]s" t="inlineStr">` + "\n" + `<is><t>x</t></is>` + "\n" + `</c>`,
		`<c r="%[1]s" t="str"><f>A1</f><v>calc</v></c>`,
		`<c r="%[1]s" t="inlineStr"><is><t>é` + "\r\n" + `%[3]s</t></is></c>`,
		`<c r="%[1]s" t="inlineStr"><is><t>_x0041_%[3]s</t></is></c>`,
		`<c r="%[1]s" s="0"><v>0.5</v></c>`,
	}
	pad := strings.Repeat("y", row*7%61)
	var b strings.Builder
	fmt.Fprintf(&b, `<row r="%d">`, row)
	for col := range shapes {
		name, _ := excelize.CoordinatesToCellName(col+1, row)
		fmt.Fprintf(&b, shapes[(col+row)%len(shapes)], name, row, pad)
	}
	return b.String() + `</row>`
}

// chunkReader reads data at most n bytes a read.
type chunkReader struct {
	data []byte
	n    int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), r.n)], r.data)
	r.data = r.data[n:]
	return n, nil
}

// Each cell reads as excelize shows it, and the same wherever the
// reader's buffer ends in it: read whole, and a few bytes a read.
func TestSheetCellShapes(t *testing.T) {
	var rows strings.Builder
	rows.WriteString(inline(1, "wbsElementCode", "description"))
	for r := 2; r < 2000; r++ {
		rows.WriteString(cellShapes(r))
	}
	sheet := sheetXML(rows.String())
	data := withSheet(t, sheet)
	whole := sheetRows(t, data)
	if want := excelizeRows(t, data); !reflect.DeepEqual(whole, want) {
		t.Fatalf("read\n%q\nexcelize reads\n%q", whole[:3], want[:3])
	}
	for _, n := range []int{1, 2, 3, 5, 7, 11, 13, 97, 4099} {
		var got [][]string
		_, err := readSheet(&chunkReader{data: sheet, n: n}, nil, nil, func(row int, cols []string, _ int64, bad error) {
			if bad != nil {
				t.Fatalf("row %d: %v", row, bad)
			}
			got = append(got, append([]string(nil), cols...))
		})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, whole) {
			t.Fatalf("read %d bytes a read, the rows differ", n)
		}
	}
}
