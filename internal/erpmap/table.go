package erpmap

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/wbsctl/wbsctl/internal/wbsfile"
	"github.com/wbsctl/wbsctl/sdk"
	"github.com/xuri/excelize/v2"
)

// Row is one row of an export, as its reader gives it.
type Row struct {
	// Line is the row's number: a text file's line (where the row
	// starts), a sheet's row.
	Line int
	// Cells are the row's cells from the first column; a row may end
	// before the header does (a workbook leaves empty cells out).
	Cells []string
	// Err is why the row could not be read, such as a quote left open;
	// Cells is nil then.
	Err error
}

// Range is a range of merged cells of a sheet.
type Range struct {
	// Name is the range as a spreadsheet names it: "Daten!A4:B4".
	Name string
	// FirstRow and LastRow are sheet rows; FirstCol and LastCol columns
	// counted from 0, as the cells of a Row.
	FirstRow, LastRow, FirstCol, LastCol int
}

// Table is an export as Map.Read takes it: its rows in order, title rows
// and header included, and how to name a cell. A reader of any format
// can give one: ReadTable reads CSV, workbooks, JSON and NDJSON.
type Table struct {
	// Rows yields the rows from the file's first. Blank rows may be
	// given or left out.
	Rows iter.Seq[Row]
	// Cell names the cell of a row (Row.Line) and a column counted from
	// 0 as a spreadsheet names it ("Daten!F12"), or the row for a column
	// < 0 ("Daten row 12"). nil for a text file: its problems name the
	// line.
	Cell func(line, col int) string
	// Header, when not nil, is the header of rows that have none of
	// their own (JSON objects: their members' names); every row is then
	// data and the map's header rule is not used.
	Header []string
	// Merged are the merged ranges of a sheet: one that touches the
	// header row is refused, as its columns could not be told apart.
	Merged []Range
	// ExactCells says every data row must have as many cells as the
	// header, as in CSV: a row with another count is refused, since a
	// delimiter inside an unquoted cell shifts every cell after it.
	ExactCells bool
	// Notes are what the reading noticed that is no problem.
	Notes []string
	// SizeHint is about how many rows the table holds, 0 when not known:
	// the records are then sized once, not grown row by row.
	SizeHint int

	close func() error
}

// Close releases what the table's reader holds (a workbook's temporary
// files).
func (t *Table) Close() error {
	if t.close == nil {
		return nil
	}
	return t.close()
}

// place names row line, column col of t: its cell in a workbook, else
// "" (the problem then names the line).
func (t *Table) place(line, col int) string {
	if t.Cell == nil {
		return ""
	}
	return t.Cell(line, col)
}

// rowName names a row of t: "Daten row 4", "line 4".
func (t *Table) rowName(line int) string {
	if t.Cell == nil {
		return fmt.Sprintf("line %d", line)
	}
	return t.Cell(line, -1)
}

// ReadError is an export that cannot be read as rows at all: not text of
// its encoding, not a workbook, a sheet that is not there. It matches
// sdk.ErrValidation (exit 5): nothing is sent.
type ReadError struct {
	Problem wbsfile.Problem
}

func (e *ReadError) Error() string { return e.Problem.String() }

// Is makes a *ReadError match sdk.ErrValidation.
func (e *ReadError) Is(target error) bool { return target == sdk.ErrValidation }

func readError(line int, format string, args ...any) error {
	return &ReadError{Problem: wbsfile.Problem{Line: line, Message: fmt.Sprintf(format, args...)}}
}

// The bounds of a workbook read, those of wbsfile: what it unzips in
// all, what it keeps of a part in memory, and the cells it reads.
const (
	maxWorkbookBytes     = 512 << 20
	workbookPartInMemory = 16 << 20
	maxWorkbookCells     = 16 << 20
)

// ReadTable reads the rows of an export of format f (CSV, xlsx, JSON or
// NDJSON), with the options apply takes for it: a workbook's sheet, a
// text file's delimiter and encoding. A CSV file's delimiter is found
// from its first lines, title rows included, among ',', ';' and TAB.
// Close the table when done.
func ReadTable(data []byte, f wbsfile.Format, opts wbsfile.ReadOptions) (*Table, error) {
	if err := opts.Check(f); err != nil {
		return nil, err
	}
	if len(data) > wbsfile.MaxFileBytes {
		return nil, fmt.Errorf("the file is larger than %d bytes", wbsfile.MaxFileBytes)
	}
	switch f {
	case wbsfile.FormatXLSX:
		return readWorkbook(data, opts.Sheet)
	case wbsfile.FormatCSV, wbsfile.FormatJSON, wbsfile.FormatNDJSON:
		text, problem := wbsfile.DecodeText(data, opts)
		if problem != nil {
			return nil, &ReadError{Problem: *problem}
		}
		switch f {
		case wbsfile.FormatCSV:
			return readCSV(text, opts.Delimiter)
		case wbsfile.FormatJSON:
			return readJSON(text, false)
		}
		return readJSON(text, true)
	}
	return nil, fmt.Errorf("a map reads csv, xlsx, json and ndjson exports, not %s", f)
}

// readCSV reads delimited text: rows of cells, the header among them.
func readCSV(data []byte, delim rune) (*Table, error) {
	if delim == 0 {
		var err error
		if delim, err = findDelimiter(data); err != nil {
			return nil, err
		}
	}
	rows := func(yield func(Row) bool) {
		r := csv.NewReader(bytes.NewReader(data))
		r.Comma = delim
		r.FieldsPerRecord = -1
		r.ReuseRecord = true
		for {
			cells, err := r.Read()
			if err == io.EOF {
				return
			}
			if err != nil {
				line := 0
				var pe *csv.ParseError
				if errors.As(err, &pe) {
					line = pe.StartLine
				}
				if !yield(Row{Line: line, Err: err}) {
					return
				}
				continue
			}
			line, _ := r.FieldPos(0)
			if !yield(Row{Line: line, Cells: cells}) {
				return
			}
		}
	}
	return &Table{Rows: rows, ExactCells: true, SizeHint: bytes.Count(data, []byte("\n")) + 1}, nil
}

// findDelimiter is the one of TAB, ';' and ',' that separates the cells
// of the first lines: the one that the most lines hold the same number
// of times (the header and the data rows have as many cells each; title
// rows and text do not), TAB before ';' before ',' when as many lines
// agree for two, as a comma in text is the more common.
func findDelimiter(data []byte) (rune, error) {
	candidates := []byte{'\t', ';', ','}
	counts := make([]map[int]int, len(candidates)) // lines by count, a map a candidate
	for i := range counts {
		counts[i] = map[int]int{}
	}
	rest, seen := data, 0
	for len(rest) > 0 && seen < maxHeaderRow {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		seen++
		for i, c := range candidates {
			n, quoted := 0, false
			for _, b := range line {
				if b == '"' {
					quoted = !quoted
				}
				if b == c && !quoted {
					n++
				}
			}
			if n > 0 {
				counts[i][n]++
			}
		}
	}
	best, bestLines := ',', 0
	for i, c := range candidates {
		if lines := slices.Max(append(slices.Collect(maps.Values(counts[i])), 0)); lines > bestLines {
			best, bestLines = rune(c), lines
		}
	}
	return best, nil
}

// readWorkbook reads a sheet of the workbook data: the one named, in any
// case, or the first visible one.
func readWorkbook(data []byte, sheet string) (*Table, error) {
	wb, err := excelize.OpenReader(bytes.NewReader(data), excelize.Options{UnzipSizeLimit: maxWorkbookBytes, UnzipXMLSizeLimit: workbookPartInMemory})
	if err != nil {
		return nil, readError(0, "cannot be read as a workbook (.xlsx): %v", err)
	}
	fail := func(err error) (*Table, error) {
		wb.Close()
		return nil, err
	}
	sheets := wb.GetSheetList()
	if sheet == "" {
		for _, s := range sheets {
			if visible, err := wb.GetSheetVisible(s); err == nil && visible {
				sheet = s
				break
			}
		}
		if sheet == "" {
			return fail(readError(0, "the workbook has no visible sheet: name the one to read with --sheet (its sheets: %s)", quoteAll(sheets)))
		}
	} else {
		i := slices.IndexFunc(sheets, func(s string) bool { return s == sheet })
		if i < 0 {
			i = slices.IndexFunc(sheets, func(s string) bool { return strings.EqualFold(s, sheet) })
		}
		if i < 0 {
			return fail(readError(0, "the workbook has no sheet %q (its sheets: %s)", sheet, quoteAll(sheets)))
		}
		sheet = sheets[i]
	}
	ref := wbsfile.SheetReference(sheet)
	t := &Table{close: wb.Close}
	t.Cell = func(line, col int) string {
		if col < 0 {
			return fmt.Sprintf("%s row %d", ref, line)
		}
		name, err := excelize.CoordinatesToCellName(col+1, line)
		if err != nil {
			return fmt.Sprintf("%s row %d", ref, line)
		}
		return ref + "!" + name
	}
	merged, err := wb.GetMergeCells(sheet, true)
	if err != nil {
		return fail(readError(0, "cannot read the sheet %q: %v", sheet, err))
	}
	for _, mc := range merged {
		c1, r1, err1 := excelize.CellNameToCoordinates(mc.GetStartAxis())
		c2, r2, err2 := excelize.CellNameToCoordinates(mc.GetEndAxis())
		if err1 != nil || err2 != nil {
			continue
		}
		t.Merged = append(t.Merged, Range{Name: ref + "!" + mc.GetStartAxis() + ":" + mc.GetEndAxis(),
			FirstRow: min(r1, r2), LastRow: max(r1, r2), FirstCol: min(c1, c2) - 1, LastCol: max(c1, c2) - 1})
	}
	t.Rows = func(yield func(Row) bool) {
		rows, err := wb.Rows(sheet)
		if err != nil {
			yield(Row{Line: 1, Err: err})
			return
		}
		defer rows.Close()
		line, cells := 0, 0
		for rows.Next() {
			// The iterator stops at every row number, those the file
			// leaves out too: line is the row's number.
			line++
			cols, err := rows.Columns()
			if err != nil {
				if !yield(Row{Line: line, Err: err}) {
					return
				}
				continue
			}
			if cells += len(cols); cells > maxWorkbookCells {
				yield(Row{Line: line, Err: fmt.Errorf("the sheet has more than %d cells: the rest is not read", maxWorkbookCells)})
				return
			}
			if !yield(Row{Line: line, Cells: cols}) {
				return
			}
		}
		if err := rows.Error(); err != nil {
			yield(Row{Line: line + 1, Err: err})
		}
	}
	return t, nil
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

// readJSON reads a JSON array of objects, or NDJSON (lines), an object a
// line: the header is their members' names in the order first met, a
// row an object. Members hold text, numbers, booleans or null (an empty
// cell); a nested object or list is refused.
func readJSON(data []byte, lines bool) (*Table, error) {
	starts := []int{0}
	for i, b := range data {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	lineAt := func(off int64) int { return sort.SearchInts(starts, int(off)+1) }
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if !lines {
		if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
			return nil, readError(lineAt(dec.InputOffset()), "a JSON export is an array of objects, [{…}, {…}]")
		}
	}
	type object struct {
		line   int
		values map[int]string
	}
	var (
		header  []string
		columns = map[string]int{}
		objects []object
	)
	for {
		if !lines && !dec.More() {
			break
		}
		tok, err := dec.Token()
		if lines && err == io.EOF {
			break
		}
		line := lineAt(dec.InputOffset())
		if err != nil {
			return nil, readError(line, "unreadable JSON: %v", err)
		}
		if tok != json.Delim('{') {
			return nil, readError(line, "each element of the export is an object of members, not %v", tok)
		}
		obj := object{line: line, values: map[int]string{}}
		for dec.More() {
			key, err := dec.Token()
			if err != nil {
				return nil, readError(lineAt(dec.InputOffset()), "unreadable JSON: %v", err)
			}
			name := key.(string)
			val, err := dec.Token()
			if err != nil {
				return nil, readError(lineAt(dec.InputOffset()), "unreadable JSON: %v", err)
			}
			var cell string
			switch v := val.(type) {
			case string:
				cell = v
			case json.Number:
				cell = v.String()
			case bool:
				cell = fmt.Sprint(v)
			case nil:
			default:
				return nil, readError(lineAt(dec.InputOffset()), "the member %q holds an object or a list: a map reads members of text, numbers and booleans", name)
			}
			col, ok := columns[name]
			if !ok {
				col = len(header)
				columns[name], header = col, append(header, name)
			}
			if _, twice := obj.values[col]; twice {
				return nil, readError(lineAt(dec.InputOffset()), "the member %q is given twice", name)
			}
			obj.values[col] = cell
		}
		if _, err := dec.Token(); err != nil {
			return nil, readError(lineAt(dec.InputOffset()), "unreadable JSON: %v", err)
		}
		objects = append(objects, obj)
	}
	if header == nil {
		header = []string{}
	}
	rows := func(yield func(Row) bool) {
		for _, o := range objects {
			cells := make([]string, len(header))
			for col, v := range o.values {
				cells[col] = v
			}
			if !yield(Row{Line: o.line, Cells: cells}) {
				return
			}
		}
	}
	return &Table{Rows: rows, Header: header, SizeHint: len(objects)}, nil
}
