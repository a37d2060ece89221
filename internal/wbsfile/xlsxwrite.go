package wbsfile

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"
)

// exportSheet is the name of the one sheet of a workbook written.
const exportSheet = "WBS"

// maxColumnWidth is the widest column a spreadsheet allows, in
// characters.
const maxColumnWidth = 255

// workbookWriter writes a workbook of one sheet: a header row, frozen, and
// a row a record, each column as wide as its widest cell. The widths are
// known only at the end, and a spreadsheet needs them before the rows, so
// the rows wait in a temporary file, not in memory, until close.
type workbookWriter struct {
	spool  *os.File
	buf    *bufio.Writer
	csv    *csv.Writer
	widths []int
	rows   int
}

func newWorkbookWriter() (*workbookWriter, error) {
	spool, err := os.CreateTemp("", "wbsctl-export-*.csv")
	if err != nil {
		return nil, fmt.Errorf("a temporary file for the workbook's rows: %w", err)
	}
	ww := &workbookWriter{spool: spool, buf: bufio.NewWriter(spool), widths: make([]int, len(columns))}
	ww.csv = csv.NewWriter(ww.buf)
	for i, c := range columns {
		ww.widths[i] = utf8.RuneCountInString(c)
	}
	return ww, nil
}

// write writes the cells of the element code, in the order of columns,
// isActive TRUE or FALSE.
func (ww *workbookWriter) write(code string, row []string) error {
	// The header is the first row.
	if ww.rows+1 >= excelize.TotalRows {
		return fmt.Errorf("a sheet holds at most %d elements: export as CSV", excelize.TotalRows-1)
	}
	for i, text := range row {
		if r, ok := notInXML(text); ok {
			return &UnwritableError{Code: code, Err: fmt.Errorf("the element %q: its %s holds %U, which a workbook cannot hold: export it as CSV or JSON", code, columns[i], r)}
		}
	}
	ww.rows++
	for i, cell := range row {
		ww.widths[i] = max(ww.widths[i], utf8.RuneCountInString(cell))
	}
	return ww.csv.Write(row)
}

// close writes the workbook to w and removes the temporary file.
func (ww *workbookWriter) close(w io.Writer) (err error) {
	defer func() {
		ww.spool.Close()
		if rerr := os.Remove(ww.spool.Name()); err == nil && rerr != nil && !os.IsNotExist(rerr) {
			err = rerr
		}
	}()
	ww.csv.Flush()
	if err := ww.csv.Error(); err != nil {
		return err
	}
	if err := ww.buf.Flush(); err != nil {
		return err
	}
	if _, err := ww.spool.Seek(0, io.SeekStart); err != nil {
		return err
	}
	f := excelize.NewFile()
	defer f.Close()
	if err := f.SetSheetName("Sheet1", exportSheet); err != nil {
		return err
	}
	sw, err := f.NewStreamWriter(exportSheet)
	if err != nil {
		return err
	}
	// Widths and panes come before the rows.
	for i, width := range ww.widths {
		if err := sw.SetColWidth(i+1, i+1, float64(min(width+2, maxColumnWidth))); err != nil {
			return err
		}
	}
	if err := sw.SetPanes(&excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft",
		Selection: []excelize.Selection{{SQRef: "A2", ActiveCell: "A2", Pane: "bottomLeft"}}}); err != nil {
		return err
	}
	bold, err := f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}})
	if err != nil {
		return err
	}
	header := make([]any, len(columns))
	for i, c := range columns {
		header[i] = excelize.Cell{StyleID: bold, Value: c}
	}
	if err := sw.SetRow("A1", header); err != nil {
		return err
	}
	r := csv.NewReader(bufio.NewReader(ww.spool))
	r.ReuseRecord = true
	for row := 2; ; row++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		cell, _ := excelize.CoordinatesToCellName(1, row)
		// Text as text, whatever it looks like ("1000", "=A1", "TRUE"),
		// the flag as a boolean, and nothing for an empty cell.
		values := make([]any, len(rec))
		for i, cell := range rec {
			values[i] = textOrNothing(cell)
		}
		values[0], values[activeColumn] = rec[0], rec[activeColumn] == "TRUE"
		if err := sw.SetRow(cell, values); err != nil {
			return err
		}
	}
	if err := sw.Flush(); err != nil {
		return err
	}
	return f.Write(w)
}

func textOrNothing(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// notInXML is the first character of s that XML 1.0, and so a workbook,
// cannot hold (a control character other than TAB, LF and CR, U+FFFE,
// U+FFFF, or a byte that is not UTF-8, read as U+FFFD): excelize would
// write another in its place.
func notInXML(s string) (rune, bool) {
	for i, r := range s {
		switch {
		case r == utf8.RuneError:
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return rune(s[i]), true
			}
		case r < 0x20 && r != '\t' && r != '\n' && r != '\r', r == 0xfffe, r == 0xffff:
			return r, true
		}
	}
	return 0, false
}
