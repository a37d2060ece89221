package wbsfile

import (
	"errors"
	"fmt"
	"slices"
	"testing"
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
