package wbsfile

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// Rows read ahead reach the table in order, each with its own cells, over
// several batches and past a partial last one, though readSheet reuses its
// list of cells and the table pads a short row by appending to it; the
// facts and the error of the read come back once every row has.
func TestRowsReadAheadKeepTheirCells(t *testing.T) {
	const rows = 3*aheadBatchRows + 7
	bad := errors.New("unreadable")
	want := func(row int) []string {
		// Rows of one to four cells, as a sheet's rows end at their last.
		cells := make([]string, 1+row%4)
		for i := range cells {
			cells[i] = fmt.Sprintf("r%dc%d", row, i)
		}
		return cells
	}
	read := func(emit sheetRow) (sheetFacts, error) {
		cols := make([]string, 0, 8) // reused, as readSheet reuses its own
		for row := 1; row <= rows; row++ {
			if row == 100 {
				emit(row, nil, int64(row), bad)
				continue
			}
			cols = append(cols[:0], want(row)...)
			emit(row, cols, int64(row), nil)
			clear(cols)
		}
		return sheetFacts{hidden: 2}, bad
	}
	next := 1
	facts, err := readRowsAhead(read, func(row int, cols []string, n int64, e error) {
		if row != next || n != int64(row) {
			t.Fatalf("row %d (read %d) came after row %d", row, n, next-1)
		}
		next++
		if row == 100 {
			if e != bad {
				t.Fatalf("row 100: %v, want its fault", e)
			}
			return
		}
		if !slices.Equal(cols, want(row)) {
			t.Fatalf("row %d: %q, want %q", row, cols, want(row))
		}
		for len(cols) < 4 {
			cols = append(cols, "") // as the table pads a row to its header
		}
	})
	if next != rows+1 || facts.hidden != 2 || err != bad {
		t.Fatalf("%d rows, facts %+v, error %v", next-1, facts, err)
	}
}

// A hostile sheet, read through the read-ahead, is refused with a problem
// and leaves no goroutine behind: one that says it unzips to a few bytes
// and holds megabytes, one that unzips past the bound, one whose rows end
// in the middle of a cell, and one whose XML breaks before megabytes of
// rows, which the read-ahead would go on inflating unless closed.
func TestHostileSheetReadAheadEnds(t *testing.T) {
	good := streamed(t, []any{"wbsElementCode", "description"}, []any{"H-1", "one"}, []any{"H-2", "two"})
	var sheet []byte
	rezip(t, good, func(name string, body []byte) []byte {
		if name == "xl/worksheets/sheet1.xml" {
			sheet = body
		}
		return body
	})
	without := func(name string) []byte {
		return copyZip(t, good, func(zw *zip.Writer, f *zip.File) error {
			if f.Name == name {
				return nil
			}
			return zw.Copy(f)
		}, func(*zip.Writer) error { return nil })
	}
	open := bytes.Index(sheet, []byte("<sheetData>")) + len("<sheetData>")
	rows := bytes.Repeat([]byte(`<row><c t="inlineStr"><is><t>x</t></is></c></row>`), 1<<16)
	padded := slices.Concat(sheet[:open], bytes.Repeat([]byte(" "), 8<<20), sheet[open:])
	for _, tt := range []struct {
		name string
		data []byte
		want string
	}{
		{"a sheet that lies about its size", withPart(t, without("xl/worksheets/sheet1.xml"), "xl/worksheets/sheet1.xml", uint64(len(sheet)), padded),
			"does not hold what it says"},
		{"a sheet past the bound", withPart(t, without("xl/worksheets/sheet1.xml"), "xl/worksheets/sheet1.xml", maxWorkbookBytes+1, padded),
			"it unzips to more than 536870912 bytes"},
		{"a sheet cut in a cell", rezip(t, good, func(name string, body []byte) []byte {
			if name == "xl/worksheets/sheet1.xml" {
				return slices.Concat(body[:open], rows, []byte(`<row><c t="inlineStr"><is><t>cut`))
			}
			return body
		}), "the part ends inside the element t"},
		{"a sheet malformed before megabytes of rows", rezip(t, good, func(name string, body []byte) []byte {
			if name == "xl/worksheets/sheet1.xml" {
				return slices.Concat(body[:open], []byte(`<row><c><v>1</x></c></row>`), rows, body[open:])
			}
			return body
		}), "its XML is not well-formed"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := runtime.NumGoroutine()
			file := parseXLSX(t, tt.data, ReadOptions{})
			if got := problems(file); !strings.Contains(got, tt.want) || len(file.Records) != 0 {
				t.Fatalf("%d records; problems, want %q:\n%s", len(file.Records), tt.want, got)
			}
			for i := 0; runtime.NumGoroutine() > before && i < 100; i++ {
				time.Sleep(10 * time.Millisecond)
			}
			if n := runtime.NumGoroutine(); n > before {
				t.Fatalf("%d goroutines after the read, %d before", n, before)
			}
		})
	}
}
