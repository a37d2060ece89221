package erpmap

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/wbsctl/wbsctl/internal/wbsfile"
	"github.com/xuri/excelize/v2"
)

// Writer is a map turned round, for `wbsctl export --map`: the header and
// the cells of an export in the ERP's columns, such that reading them
// back through the map gives the same elements. Only what can be turned
// round is written: a field a column gives (with alpha, or through
// trim), isActive by its words, and the links of the types the map
// names, one a type.
type Writer struct {
	m       *Map
	columns []string
	fields  []writeField
}

// writeField fills one column of an element's row.
type writeField struct {
	col  int
	cell func(r wbsfile.Record) (string, error)
}

// Writer returns the map turned round, or an *Error naming each rule
// that cannot be: an expression (other than trim of a column), an
// isActive given by an expression, a code given by a value.
func (m *Map) Writer() (*Writer, error) {
	w := &Writer{m: m}
	var problems []MapProblem
	refuse := func(line int, path, format string, args ...any) {
		problems = append(problems, MapProblem{File: m.name, Line: line, Rule: path, Message: fmt.Sprintf(format, args...)})
	}
	column := func(name string) int {
		if i := slices.Index(w.columns, name); i >= 0 {
			return i
		}
		w.columns = append(w.columns, name)
		return len(w.columns) - 1
	}
	text := func(r *textRule, get func(wbsfile.Record) (string, bool, error)) {
		name := r.column
		if r.expr != nil {
			if name = trimmedColumn(r.expr); name == "" {
				refuse(r.line, r.path, "the expression %s cannot be turned round: export --map writes a field a column gives, or trim of one", r.expr.src)
				return
			}
		}
		if r.value != nil {
			// No column: the element must hold the value, or reading
			// the export back would change it.
			w.fields = append(w.fields, writeField{col: -1, cell: func(rec wbsfile.Record) (string, error) {
				// v is "" where the element has none.
				v, _, err := get(rec)
				if err == nil && v != *r.value {
					err = fmt.Errorf("its %s is %q, and the map (%s:%d) gives every row %q", r.path, v, m.name, r.line, *r.value)
				}
				return "", err
			}})
			return
		}
		// back is what reading the cell gives: a value it would change
		// cannot be written.
		back, how := func(s string) string { return s }, ""
		switch {
		case r.expr != nil:
			back, how = strings.TrimSpace, r.expr.src+" would take the spaces around it"
		case r.alpha:
			back, how = alpha, "alpha would take its leading zeros"
		}
		w.fields = append(w.fields, writeField{col: column(name), cell: func(rec wbsfile.Record) (string, error) {
			v, _, err := get(rec)
			if err == nil && back(v) != v {
				err = fmt.Errorf("its %s is %q, and %s (%s:%d)", r.path, v, how, m.name, r.line)
			}
			return v, err
		}})
	}
	text(&m.code, func(r wbsfile.Record) (string, bool, error) { return r.Code, true, nil })
	for i, t := range m.texts {
		if t != nil {
			f := wbsfile.TextFields[i]
			text(t, func(r wbsfile.Record) (string, bool, error) {
				return r.Text(f), *f.Of(&r.Texts) != nil, nil
			})
		}
	}
	if a := m.active; a != nil {
		if a.expr != nil {
			refuse(a.line, "isActive", "the expression %s cannot be turned round: export --map writes isActive from a column", a.expr.src)
		} else {
			col := column(a.column)
			w.fields = append(w.fields, writeField{col: col, cell: func(r wbsfile.Record) (string, error) {
				return m.activeWord(r.IsActive == nil || *r.IsActive)
			}})
		}
	}
	for i := range m.organizations {
		o := &m.organizations[i]
		text(&o.textRule, func(r wbsfile.Record) (string, bool, error) { return linkOf(r, o.entityType, m, o.line) })
	}
	if len(problems) > 0 {
		return nil, &Error{Problems: problems}
	}
	return w, nil
}

// activeWord is the cell that reads back as active: the first word of
// the map giving it, or the empty cell its else gives, or true or false
// for a column read as a boolean.
func (m *Map) activeWord(active bool) (string, error) {
	a := m.active
	if len(a.entries) == 0 {
		return strconv.FormatBool(active), nil
	}
	for _, e := range a.entries {
		if e.value == active {
			return e.key, nil
		}
	}
	if a.orElse != nil && *a.orElse == active {
		return "", nil
	}
	return "", fmt.Errorf("it is isActive %t, which no word of isActive.map (%s:%d) gives", active, m.name, a.mapLine)
}

// linkOf is the code of r's link of entityType: "" and false when it has
// none, an error when it has several, which one cell cannot hold.
func linkOf(r wbsfile.Record, entityType string, m *Map, line int) (string, bool, error) {
	var codes []string
	for _, o := range r.Organizations {
		if o.EntityType == entityType {
			codes = append(codes, o.Code)
		}
	}
	switch len(codes) {
	case 0:
		return "", false, nil
	case 1:
		return codes[0], true, nil
	}
	return "", false, fmt.Errorf("it has %d links of type %s (%s), and the map's column for them (%s:%d) holds one", len(codes), entityType, strings.Join(codes, ", "), m.name, line)
}

// Header is the export's header: the map's columns, in its order, each
// once.
func (w *Writer) Header() []string { return slices.Clone(w.columns) }

// Row is r's cells under Header, or an *wbsfile.UnwritableError saying why
// r cannot be written so that it reads back the same: a field apply
// would refuse, two links of one type, a value the map gives otherwise.
func (w *Writer) Row(r wbsfile.Record) ([]string, error) {
	if err := wbsfile.CheckWritable(r); err != nil {
		return nil, err
	}
	row := make([]string, len(w.columns))
	set := make([]bool, len(w.columns))
	for _, f := range w.fields {
		v, err := f.cell(r)
		if err == nil && f.col >= 0 && set[f.col] && row[f.col] != v {
			err = fmt.Errorf("the map reads column %q for two fields, which the element holds otherwise (%q and %q)", w.columns[f.col], row[f.col], v)
		}
		if err != nil {
			return nil, &wbsfile.UnwritableError{Code: r.Code, Err: fmt.Errorf("the element %q: %w", r.Code, err)}
		}
		if f.col >= 0 {
			row[f.col], set[f.col] = v, true
		}
	}
	return row, nil
}

// Unwritten are the entity types of r's links that the map does not
// name: the export leaves them out, as apply --map leaves them alone.
func (w *Writer) Unwritten(r wbsfile.Record) []string {
	var types []string
	for _, o := range r.Organizations {
		if !slices.ContainsFunc(w.m.organizations, func(rule orgRule) bool { return rule.entityType == o.EntityType }) &&
			!slices.Contains(types, o.EntityType) {
			types = append(types, o.EntityType)
		}
	}
	return types
}

// TableWriter writes an export's rows, a header first, as CSV (with
// wbsfile.WriteOptions), a workbook, or JSON or NDJSON objects whose
// members are the header's names: the files ReadTable reads.
type TableWriter struct {
	w      io.Writer
	f      wbsfile.Format
	header []string
	csv    *csv.Writer
	book   *excelize.File
	sheet  *excelize.StreamWriter
	line   int
	n      int
}

// NewTableWriter starts a table of format f with header, which a map
// whose header is at row headerRow finds there: the rows above it are
// written empty but for a title in the first.
func NewTableWriter(w io.Writer, f wbsfile.Format, opts wbsfile.WriteOptions, header []string, headerRow int) (*TableWriter, error) {
	tw := &TableWriter{w: w, f: f, header: header}
	above := make([][]string, max(headerRow-1, 0))
	for i := range above {
		above[i] = []string{""}
	}
	if len(above) > 0 {
		above[0][0] = "wbsctl export"
	}
	switch f {
	case wbsfile.FormatCSV:
		if opts.BOM {
			if _, err := w.Write([]byte("\uFEFF")); err != nil {
				return nil, err
			}
		}
		tw.csv = csv.NewWriter(w)
		if opts.Delimiter != 0 {
			tw.csv.Comma = opts.Delimiter
		}
	case wbsfile.FormatXLSX:
		tw.book = excelize.NewFile()
		sw, err := tw.book.NewStreamWriter("Sheet1")
		if err != nil {
			return nil, err
		}
		tw.sheet = sw
	case wbsfile.FormatJSON, wbsfile.FormatNDJSON:
		if headerRow > 1 {
			return nil, fmt.Errorf("the map's header is at row %d, which %s has not: write csv or xlsx", headerRow, f)
		}
		return tw, nil
	default:
		return nil, fmt.Errorf("export --map writes csv, xlsx, json or ndjson, not %s", f)
	}
	for _, row := range append(above, header) {
		if err := tw.row(row); err != nil {
			return nil, err
		}
	}
	return tw, nil
}

// Write writes a row of cells under the header.
func (tw *TableWriter) Write(cells []string) error {
	if tw.csv != nil || tw.sheet != nil {
		return tw.row(cells)
	}
	// The members in the header's order, which a map does not need but
	// a reader likes.
	var b strings.Builder
	b.WriteByte('{')
	for i, name := range tw.header {
		k, _ := json.Marshal(name)
		v, _ := json.Marshal(cells[i])
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	sep := "\n"
	if tw.f == wbsfile.FormatJSON {
		sep = ",\n"
		if tw.n == 0 {
			sep = "[\n"
		}
		_, err := io.WriteString(tw.w, sep+b.String())
		tw.n++
		return err
	}
	tw.n++
	_, err := io.WriteString(tw.w, b.String()+sep)
	return err
}

func (tw *TableWriter) row(cells []string) error {
	if tw.csv != nil {
		return tw.csv.Write(cells)
	}
	tw.line++
	values := make([]any, len(cells))
	for i, c := range cells {
		// A cell of text, so that 0000004711 keeps its zeros.
		values[i] = excelize.Cell{Value: c}
	}
	cell, err := excelize.CoordinatesToCellName(1, tw.line)
	if err != nil {
		return err
	}
	return tw.sheet.SetRow(cell, values)
}

// Close ends the table and passes on what is buffered.
func (tw *TableWriter) Close() error {
	switch {
	case tw.csv != nil:
		tw.csv.Flush()
		return tw.csv.Error()
	case tw.sheet != nil:
		if err := tw.sheet.Flush(); err != nil {
			return err
		}
		return errors.Join(tw.book.Write(tw.w), tw.book.Close())
	case tw.f == wbsfile.FormatJSON:
		end := "\n]\n"
		if tw.n == 0 {
			end = "[]\n"
		}
		_, err := io.WriteString(tw.w, end)
		return err
	}
	return nil
}

// HeaderRow is the row at which the map finds its header when written by
// a TableWriter: the row it names, or the first.
func (m *Map) HeaderRow() int { return max(m.header.row, 1) }

// HasWhere says whether the map has a where: rows it filters out when
// reading, which writing does not know.
func (m *Map) HasWhere() bool { return m.where != nil }
