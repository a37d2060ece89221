package erpmap

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/internal/wbsfile"
)

// benchRows is the number of rows of the benchmarks: the scale goal's
// 200,000 elements.
const benchRows = 200_000

// benchRow is the cells of row i of an SAP export, as the SAP fixture's
// header orders them.
func benchRow(i int) []string {
	status := "REL  AUC  SETC"
	if i%7 == 0 {
		status = "TECO"
	}
	return []string{fmt.Sprintf("P-%06d", i), fmt.Sprintf(" element %d", i), "1000", fmt.Sprint(1010 + i%20),
		fmt.Sprint(1100 + i%5), fmt.Sprintf("%010d", 4711+i%50), status, "Müller"}
}

// benchOwnCSV is the same rows in wbsctl's own header, as the map gives
// them.
func benchOwnCSV(n int) []byte {
	var b bytes.Buffer
	b.WriteString("wbsElementCode,description,isActive,businessOrganizations\n")
	for i := range n {
		fmt.Fprintf(&b, "P-%06d,element %d,%v,company=1000;profitCenter=%d;plant=%d;costCenter=%d\n", i, i, i%7 != 0, 1010+i%20, 1100+i%5, 4711+i%50)
	}
	return b.Bytes()
}

// benchExportCSV is the rows as an SAP export to CSV: a title row above
// the German header, ';' between the cells.
func benchExportCSV(n int) []byte {
	var b bytes.Buffer
	b.WriteString("PSP-Elemente: Übersicht\n\nPSP-Element;Bezeichnung;Buchungskreis;Profitcenter;Werk;Kostenstelle;Systemstatus;Verantwortlicher\n")
	for i := range n {
		b.WriteString(strings.Join(benchRow(i), ";"))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// BenchmarkMapping compares mapping 200,000 rows of an SAP export with
// reading the same elements in wbsctl's own header. The goal: the
// mapping costs at most 1.3 times the reading.
//
//	go test -run '^$' -bench Mapping -benchmem -count 6 ./internal/erpmap
//
// own-header-csv: wbsfile reads the own-header CSV (split, parsed,
// checked). map-rows: Read maps the rows already split into cells, as
// apply would feed it from a reader. map-export-csv: ReadTable splits
// the export's CSV and Read maps it, the whole of apply --map's reading.
func BenchmarkMapping(b *testing.B) {
	own := benchOwnCSV(benchRows)
	b.Run("own-header-csv", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			file, err := wbsfile.ParseBytes(own, wbsfile.FormatCSV, wbsfile.ReadOptions{})
			if err != nil || len(file.Records) != benchRows {
				b.Fatal(err, file.Problems)
			}
		}
	})
	m := mapOf(b, "sap.wbsmap.yaml", string(readFixture(b, "sap.wbsmap.yaml")))
	header := []string{"PSP-Element", "Bezeichnung", "Buchungskreis", "Profitcenter", "Werk", "Kostenstelle", "Systemstatus", "Verantwortlicher"}
	rows := make([][]string, benchRows)
	for i := range rows {
		rows[i] = benchRow(i)
	}
	b.Run("map-rows", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			t := &Table{SizeHint: benchRows + 1, Rows: func(yield func(Row) bool) {
				if !yield(Row{Line: 1, Cells: header}) {
					return
				}
				for i, r := range rows {
					if !yield(Row{Line: i + 2, Cells: r}) {
						return
					}
				}
			}}
			res, err := m.Read(t, wbsfile.Checks{})
			if err != nil || len(res.File.Records) != benchRows {
				b.Fatal(err, res.File.Problems[:min(3, len(res.File.Problems))])
			}
		}
	})
	export := benchExportCSV(benchRows)
	b.Run("map-export-csv", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			t, err := ReadTable(export, wbsfile.FormatCSV, wbsfile.ReadOptions{})
			if err != nil {
				b.Fatal(err)
			}
			res, err := m.Read(t, wbsfile.Checks{})
			if err != nil || len(res.File.Records) != benchRows {
				b.Fatal(err)
			}
		}
	})
}

// The benchmark's rows map to the records of its own-header file.
func TestBenchmarkRowsMapToTheOwnHeaderFile(t *testing.T) {
	m := mapOf(t, "sap.wbsmap.yaml", string(readFixture(t, "sap.wbsmap.yaml")))
	res, err := m.Read(tableOf(t, benchExportCSV(100), wbsfile.FormatCSV), wbsfile.Checks{})
	if err != nil {
		t.Fatal(err)
	}
	own, err := wbsfile.ParseBytes(benchOwnCSV(100), wbsfile.FormatCSV, wbsfile.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, want := records(res.File.Records), records(own.Records)
	if len(got) != 100 || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got  %v\nwant %v", got[:3], want[:3])
	}
}
