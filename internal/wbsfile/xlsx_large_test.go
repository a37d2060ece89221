package wbsfile

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// millionRows is a workbook whose sheet WBS has rows up to 1,000,000, as
// a generator that styles a whole column writes them: a header, two
// elements, then empty styled cells in every row, and in the last row a
// code of 31 characters.
func millionRows(t testing.TB) (workbook []byte, sheetBytes int) {
	t.Helper()
	good := streamed(t, []any{"wbsElementCode", "description"}, []any{"M-1", "one"}, []any{"M-2", "two"})
	var sheet bytes.Buffer
	sheet.WriteString(`<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>`)
	sheet.WriteString(`<row r="1"><c r="A1" t="inlineStr"><is><t>wbsElementCode</t></is></c><c r="B1" t="inlineStr"><is><t>description</t></is></c></row>`)
	sheet.WriteString(`<row r="2"><c r="A2" t="inlineStr"><is><t>M-1</t></is></c><c r="B2" t="inlineStr"><is><t>one</t></is></c></row>`)
	sheet.WriteString(`<row r="3"><c r="A3" t="inlineStr"><is><t>M-2</t></is></c><c r="B3" t="inlineStr"><is><t>two</t></is></c></row>`)
	for r := 4; r < 1_000_000; r++ {
		fmt.Fprintf(&sheet, `<row r="%d"><c r="A%d"/><c r="B%d"/></row>`, r, r, r)
	}
	fmt.Fprintf(&sheet, `<row r="1000000"><c r="A1000000" t="inlineStr"><is><t>%s</t></is></c></row>`, strings.Repeat("L", 31))
	sheet.WriteString(`</sheetData></worksheet>`)
	return rezip(t, good, func(name string, body []byte) []byte {
		if name == "xl/worksheets/sheet1.xml" {
			return sheet.Bytes()
		}
		return body
	}), sheet.Len()
}

// A sheet of 1,000,000 rows is read a row at a time: its problem is
// named by its cell, and the heap stays far below what the sheet
// unzips to. WBSCTL_LARGE=1 runs it (CI does, without -race).
func TestXLSXMillionRows(t *testing.T) {
	if os.Getenv("WBSCTL_LARGE") == "" {
		t.Skip("WBSCTL_LARGE=1 reads a sheet of 1,000,000 rows")
	}
	data, unzipped := millionRows(t)
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	var peak atomic.Uint64
	done := make(chan struct{})
	go func() {
		var m runtime.MemStats
		for {
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
		}
	}()
	file := parseXLSX(t, data, ReadOptions{})
	close(done)
	got := problems(file)
	if !strings.Contains(got, `WBS!A1000000 (code "LLLLLLLLLLLLLLLLLLLLLLLLLLLLLLL"): wbsElementCode: is 31 characters long`) || len(file.Problems) != 1 {
		t.Fatalf("problems:\n%s", got)
	}
	if len(file.Records) != 2 {
		t.Fatalf("records %d, want the two valid ones", len(file.Records))
	}
	// The collector may free more than the read holds: no growth is 0.
	grown := max(int64(peak.Load())-int64(before.HeapInuse), 0)
	t.Logf("a workbook of %d bytes, its sheet %d unzipped: the heap grew by %d MiB at most", len(data), unzipped, grown>>20)
	if grown > 64<<20 {
		t.Fatalf("the heap grew by %d MiB reading the sheet: it is not streamed", grown>>20)
	}
}

// millionRowsCSV is the sheet of millionRows as CSV: a line a row.
func millionRowsCSV() []byte {
	var b bytes.Buffer
	b.WriteString("wbsElementCode,description\nM-1,one\nM-2,two\n")
	for r := 4; r < 1_000_000; r++ {
		b.WriteString("\n")
	}
	b.WriteString(strings.Repeat("L", 31) + ",\n")
	return b.Bytes()
}

// BenchmarkMillionRows reads the sheet of 1,000,000 rows of
// TestXLSXMillionRows as a workbook and as CSV, and reports by how much
// the heap grew at most while reading (peak-heap-MiB), sampled every
// millisecond.
//
//	go test -run '^$' -bench MillionRows -benchtime 5x ./internal/wbsfile
func BenchmarkMillionRows(b *testing.B) {
	workbook, _ := millionRows(b)
	for _, in := range []struct {
		f    Format
		data []byte
	}{{FormatCSV, millionRowsCSV()}, {FormatXLSX, workbook}} {
		b.Run(string(in.f), func(b *testing.B) {
			b.ReportAllocs()
			var peak uint64
			for b.Loop() {
				runtime.GC()
				var before runtime.MemStats
				runtime.ReadMemStats(&before)
				var high atomic.Uint64
				done := make(chan struct{})
				sampled := make(chan struct{})
				go func() {
					defer close(sampled)
					var m runtime.MemStats
					for {
						runtime.ReadMemStats(&m)
						if m.HeapInuse > high.Load() {
							high.Store(m.HeapInuse)
						}
						select {
						case <-done:
							return
						case <-time.After(time.Millisecond):
						}
					}
				}()
				file, err := ParseBytes(in.data, in.f, ReadOptions{})
				close(done)
				<-sampled
				if err != nil || len(file.Records) != 2 || len(file.Problems) != 1 {
					b.Fatal(err, problems(file))
				}
				if h := high.Load(); h > before.HeapInuse {
					peak = max(peak, h-before.HeapInuse)
				}
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
		})
	}
}
