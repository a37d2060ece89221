package wbsfile

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/klauspost/readahead"
	"github.com/xuri/excelize/v2"
)

// The bounds of a workbook read. A workbook is a zip file: its parts are
// refused past maxWorkbookBytes unzipped in all (a zip bomb), before any
// is unzipped; a sheet is read as a stream, a row at a time, and so is a
// shared-strings part, into a table of its text.
const (
	maxWorkbookBytes     = 512 << 20
	workbookPartInMemory = 16 << 20
	// maxWorkbookCells bounds the cells read, empty ones of a row
	// included: past it the rest of the sheet is not read.
	maxWorkbookCells = 16 << 20
)

// dateMarker is what a number in a date's format reads as: a text a cell
// of text or a number cannot give, so that a date is told from the number
// it is stored as.
const dateMarker = "\u2063wbsctl:date\u2063"

// formatMarker is what a number cell reads as where excelize's formatter
// would show it other than a spreadsheet does: with a conditional or an
// engineering format, say.
const formatMarker = "\u2063wbsctl:format\u2063"

// hiddenMarker is what a cell reads as whose number format hides its
// value, such as ;;;: a spreadsheet shows nothing, though the file holds
// the value.
const hiddenMarker = "\u2063wbsctl:hidden\u2063"

// markerStart begins each marker: a cell without it holds none.
const markerStart = "\u2063wbsctl:"

// sheetPlace names the cells of the sheet read.
type sheetPlace struct {
	name string // quoted as a reference needs it
}

// cell names the cell of a row (a line) and a column counted from 0, as
// a spreadsheet does ("WBS!B7"), or the row for a column < 0 ("WBS row
// 7"); "" when p is nil (a text file).
func (s *sheetPlace) cell(row, col int) string {
	if s == nil {
		return ""
	}
	if col < 0 {
		return fmt.Sprintf("%s row %d", s.name, row)
	}
	name, err := excelize.CoordinatesToCellName(col+1, row)
	if err != nil {
		return fmt.Sprintf("%s row %d", s.name, row)
	}
	return s.name + "!" + name
}

// SheetReference is name as a cell reference writes it: quoted when it
// holds more than letters, digits and '_'.
func SheetReference(name string) string {
	for _, r := range name {
		if !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 0x7f) {
			return "'" + strings.ReplaceAll(name, "'", "''") + "'"
		}
	}
	return name
}

// xlsx reads the sheet of the options (the first visible one when none is
// given) of the workbook data: a header row and a record a row, as CSV.
// Each cell is read as a spreadsheet shows it, with its number format, so
// that the code 1000 is "1000"; a formula gives the value last
// calculated, a boolean TRUE or FALSE. A date cell is refused: it was
// text that the spreadsheet took for a date. A cell that would be read
// otherwise than a spreadsheet shows it refuses the workbook, naming the
// cell.
func (p *parser) xlsx(data []byte) []Record {
	unreadable := func(err error) []Record {
		var styles *stylesError
		if errors.As(err, &styles) {
			p.problem(Problem{Message: "cannot read the workbook's styles: " + err.Error()})
			return nil
		}
		p.problem(Problem{Message: "cannot be read as a workbook (.xlsx): " + err.Error()})
		return nil
	}
	wb, err := openWorkbook(data)
	if err != nil {
		return unreadable(err)
	}
	names := make([]string, len(wb.sheets))
	for i, s := range wb.sheets {
		names[i] = s.name
	}
	var read *sheetPart
	choice := ""
	switch sheet := p.opts.Sheet; {
	case len(wb.sheets) == 0:
		choice = "the workbook has no sheet"
	case sheet == "":
		// The first visible sheet; a hidden one is read only when
		// --sheet names it.
		for i := range wb.sheets {
			if !wb.sheets[i].hidden {
				read = &wb.sheets[i]
				break
			}
		}
		if read == nil {
			choice = fmt.Sprintf("every sheet of the workbook is hidden: name the one to read with --sheet (its sheets: %s)", quoteAll(names))
		}
	default:
		// A spreadsheet names its sheets regardless of case.
		for i := range wb.sheets {
			if wb.sheets[i].name == sheet {
				read = &wb.sheets[i]
				break
			}
		}
		for i := range wb.sheets {
			if read == nil && strings.EqualFold(wb.sheets[i].name, sheet) {
				read = &wb.sheets[i]
			}
		}
		if read == nil {
			choice = fmt.Sprintf("the workbook has no sheet %q (its sheets: %s)", sheet, quoteAll(names))
		}
	}
	skip := ""
	if read != nil {
		skip = read.part
	}
	err = wb.readParts(skip)
	defer wb.styles.close()
	if err != nil {
		return unreadable(err)
	}
	if choice != "" {
		p.problem(Problem{Message: choice})
		return nil
	}
	f := wb.byName[read.part]
	if err := sheetNameError(read.name); err != nil || f == nil {
		if err == nil {
			err = errors.New("the workbook holds no part for it")
		}
		p.problem(Problem{Message: fmt.Sprintf("cannot read the sheet %q: %s", read.name, err)})
		return nil
	}
	part, err := f.Open()
	if err != nil {
		return unreadable(fmt.Errorf("the part %s: %w", f.Name, err))
	}
	// The sheet is inflated a few blocks ahead, on another core, while its
	// XML is read: a quarter of the time a sheet took in one goroutine.
	rc, err := readahead.NewReadCloserSize(part, 4, 256<<10)
	if err != nil {
		part.Close()
		return unreadable(err)
	}
	defer rc.Close()
	p.sheet = &sheetPlace{name: SheetReference(read.name)}
	var t *table
	cells := 0
	done, limited := false, false // the rows after are not read, or past maxWorkbookCells
	size := int64(f.UncompressedSize64)
	facts, err := readRowsAhead(func(emit sheetRow) (sheetFacts, error) {
		return readSheet(rc, wb.sst, wb.styles, emit)
	}, func(row int, cols []string, read int64, bad error) {
		switch {
		case done:
			return
		case bad != nil:
			p.problem(Problem{Line: row, Message: "unreadable row: " + bad.Error()})
			return
		}
		if cells += len(cols); cells > maxWorkbookCells {
			p.problem(Problem{Line: row, Message: fmt.Sprintf("the sheet has more than %d cells: the rest is not read", maxWorkbookCells)})
			done, limited = true, true
			return
		}
		if blank(cols) {
			return
		}
		if t == nil {
			header := slices.Clone(cols)
			if p.refuseHeaderDates(row, header) {
				done = true
				return
			}
			if t = p.newTable(header, row, 0); t == nil {
				done = true
			}
			return
		}
		if len(cols) > len(t.header) {
			for i := len(t.header); i < len(cols); i++ {
				if cols[i] != "" {
					p.problem(Problem{Line: row, Cell: p.sheet.cell(row, i), Code: t.code(cols), Message: "a cell right of the header's last column"})
					break
				}
			}
			cols = cols[:len(t.header)]
		}
		for len(cols) < len(t.header) {
			cols = append(cols, "")
		}
		if p.refuseDates(row, cols, t) {
			return
		}
		if n := len(t.recs); n == cap(t.recs) && n >= estimateAfter {
			t.reserve(expectedRecords(n, read, size))
		}
		t.add(row, cols)
	})
	if err == nil && facts.highest >= wb.sst.len() {
		err = &cellFault{cell: facts.highestCell,
			msg: fmt.Sprintf("refers to shared string %d, but the workbook holds %d: the file is damaged", facts.highest, wb.sst.len())}
	}
	if err != nil {
		// What the rows read gave does not count: the workbook is
		// refused.
		*p.file = File{}
		p.bad, p.unnamed, p.columns, p.sheet = nil, nil, nil, nil
		var cell *cellFault
		switch {
		case errors.As(err, &cell):
			_, row, _ := excelize.CellNameToCoordinates(cell.cell)
			p.problem(Problem{Line: row, Cell: SheetReference(read.name) + "!" + cell.cell, Message: cell.msg})
			return nil
		case err == errTextTooLong || err == errTwoSheetData:
			return unreadable(fmt.Errorf("the part %s %w", f.Name, err))
		case isXMLSyntax(err):
			return unreadable(fmt.Errorf("the part %s: %w", f.Name, err))
		}
		return unreadable(fmt.Errorf("the part %s does not hold what it says: %w", f.Name, err))
	}
	if facts.hidden > 0 {
		p.file.Notes = append(p.file.Notes, hiddenRowsNote(p.sheet.name, facts))
	}
	if t == nil || limited {
		return nil
	}
	return t.records()
}

// A sheet does not say how many rows it has (excelize's stream writer
// states a dimension of A1 alone), so the table of a workbook is sized by
// an estimate: once estimateAfter records are read, and again whenever
// they fill the table, from the records the bytes read so far gave. An
// array grown by append instead would be copied at each step, and the
// arrays the records point into would all be kept.
const estimateAfter = 1024

// expectedRecords is the records a sheet part of size bytes is expected to
// give in all, when its first read bytes gave recs: in proportion, and a
// sixteenth more, since the numbers of the rows and of what they hold grow
// longer down the sheet. No more than a sheet has rows; a part whose size
// lies is refused at its end.
func expectedRecords(recs int, read, size int64) int {
	n := int64(recs) * size / max(read, 1)
	return int(min(n+n/16, maxSheetRows))
}

// reserve makes room in the table for n records in all. The records
// point into texts and actives: where those are full a new array is
// begun, and the old one stays as it is.
func (t *table) reserve(n int) {
	more := n - len(t.recs)
	if more <= cap(t.recs)-len(t.recs) {
		return
	}
	t.recs = slices.Grow(t.recs, more)
	if texts := more * t.textCols; texts > 0 && cap(t.texts)-len(t.texts) < texts {
		t.texts = make([]string, 0, texts)
	}
	if slices.Contains(t.cols, "active") && cap(t.actives)-len(t.actives) < more {
		t.actives = make([]bool, 0, more)
	}
}

// hiddenRowsNote says which rows of the sheet read are hidden: they are
// read all the same, as the file holds them.
func hiddenRowsNote(sheet string, facts sheetFacts) string {
	rows := make([]string, len(facts.hiddenRows))
	for i, r := range facts.hiddenRows {
		rows[i] = strconv.Itoa(r)
	}
	more := ""
	if n := facts.hidden - len(facts.hiddenRows); n > 0 {
		more = fmt.Sprintf(" and %d more", n)
	}
	are := "rows are"
	if facts.hidden == 1 {
		are = "row is"
	}
	return fmt.Sprintf("%s: %d %s hidden in the workbook (%s%s), and read all the same", sheet, facts.hidden, are, strings.Join(rows, ", "), more)
}

var (
	errUnzipsTooLarge = fmt.Errorf("it unzips to more than %d bytes", maxWorkbookBytes)
	errNotZip         = errors.New("it is not a zip file, as a workbook is (an .xls of Excel 97-2003? Save it as .xlsx)")
)

// refuseDates reports the date cells of a row, the numbers whose format
// excelize's formatter would show otherwise and the values a format hides,
// and whether there were any.
func (p *parser) refuseDates(row int, cols []string, t *table) bool {
	found := false
	for i, c := range cols {
		if !strings.Contains(c, markerStart) {
			continue
		}
		field := fieldName(t.cols[i])
		switch {
		case strings.Contains(c, dateMarker):
			want := "text"
			if t.cols[i] == "active" {
				want = "TRUE or FALSE"
			}
			p.problem(Problem{Line: row, Cell: p.sheet.cell(row, i), Code: t.code(cols), Field: field,
				Message: fmt.Sprintf("is a date, not %s: format the column as text and type the value again", want)})
		case strings.Contains(c, formatMarker):
			p.problem(Problem{Line: row, Cell: p.sheet.cell(row, i), Code: t.code(cols), Field: field,
				Message: "is a number in a format wbsctl cannot show as a spreadsheet does (conditional, engineering or currency): format the column as text and type the value again"})
		case strings.Contains(c, hiddenMarker):
			p.problem(Problem{Line: row, Cell: p.sheet.cell(row, i), Code: t.code(cols), Field: field,
				Message: "has a number format that hides its value (such as ;;;), though the file holds one: clear the cell's format"})
		default:
			continue
		}
		found = true
	}
	return found
}

// refuseHeaderDates reports the date cells of the header row, and whether
// there were any.
func (p *parser) refuseHeaderDates(row int, cols []string) bool {
	found := false
	for i, c := range cols {
		what := ""
		switch {
		case strings.Contains(c, dateMarker):
			what = "a date"
		case strings.Contains(c, formatMarker):
			what = "a formatted number"
		case strings.Contains(c, hiddenMarker):
			what = "hidden by its format"
		default:
			continue
		}
		found = true
		p.problem(Problem{Line: row, Cell: p.sheet.cell(row, i), Message: "a header cell is " + what + ", not a column's name"})
	}
	return found
}

// fieldNames are the fields of the columns of a table, by their key; a
// text field's key is its name.
var fieldNames = map[string]string{
	"code": "wbsElementCode", "active": "isActive", "orgs": "businessOrganizations",
}

// fieldName is the field of the column whose key is col.
func fieldName(col string) string {
	if name, ok := fieldNames[col]; ok {
		return name
	}
	return col
}

func blank(cols []string) bool {
	for _, c := range cols {
		if c != "" {
			return false
		}
	}
	return true
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

// hidingFormat reports whether the format code hides a value the cell
// holds: a number section that prints nothing (;;; hides every number,
// 0;-0;;@ a zero, [Red];[Red];[Red] all of them), or a text section
// without @ (;;; or 0;-0;0;"n/a").
func hidingFormat(code string) bool {
	if code == "" {
		return false
	}
	sections := formatSections(code)
	for _, sec := range sections[:min(3, len(sections))] {
		if printsNothing(sec) {
			return true
		}
	}
	return len(sections) >= 4 && !showsText(sections[3])
}

// hidingMarker is the format that shows hiddenMarker where code hides the
// value and is code elsewhere: each number section that prints nothing
// becomes the marker, and so does a text section without @.
func hidingMarker(code string) string {
	sections := formatSections(code)
	marker := `"` + hiddenMarker + `"`
	for i, sec := range sections {
		if i < 3 && printsNothing(sec) || i == 3 && !showsText(sec) {
			sections[i] = marker
		}
	}
	return strings.Join(sections, ";")
}

// formatSections splits a number format code at its semicolons, leaving
// those in quotes, brackets or after a backslash.
func formatSections(code string) []string {
	var sections []string
	start, quoted, bracket := 0, false, false
	for i := 0; i < len(code); i++ {
		switch c := code[i]; {
		case quoted:
			quoted = c != '"'
		case bracket:
			bracket = c != ']'
		case c == '"':
			quoted = true
		case c == '[':
			bracket = true
		case c == '\\':
			i++
		case c == ';':
			sections = append(sections, code[start:i])
			start = i + 1
		}
	}
	return append(sections, code[start:])
}

// printsNothing reports whether a format section shows no character: no
// digit, text or literal, only colours and conditions ([Red]), padding
// (_x, *x) and blanks.
func printsNothing(sec string) bool {
	for i := 0; i < len(sec); i++ {
		switch c := sec[i]; {
		case c == '[':
			if end := strings.IndexByte(sec[i:], ']'); end >= 0 {
				i += end
				continue
			}
			return false
		case c == '_' || c == '*':
			i++ // a space as wide as the next character, or a fill
		case c == ' ':
		case c == '"':
			end := strings.IndexByte(sec[i+1:], '"')
			if end != 0 {
				return false // a literal, or an unclosed quote
			}
			i++ // ""
		default:
			return false
		}
	}
	return true
}

// showsText reports whether a text section shows the cell's text: it holds
// @ outside quotes.
func showsText(sec string) bool {
	quoted := false
	for i := 0; i < len(sec); i++ {
		switch c := sec[i]; {
		case quoted:
			quoted = c != '"'
		case c == '"':
			quoted = true
		case c == '\\':
			i++
		case c == '@':
			return true
		}
	}
	return false
}

// unshownFormat reports whether excelize shows a number in the format
// code other than a spreadsheet does: a condition ("[<0]0;0.0"), a
// scientific format other than the plain 0.00E+00 ("##0.0E+0", which a
// spreadsheet shows as engineering notation), a decimal point that nothing
// follows ("0.").
func unshownFormat(code string) bool {
	var plain strings.Builder // the first section, quotes, brackets and escapes left out
	quoted := false
	for i := 0; i < len(code); i++ {
		c := code[i]
		switch {
		case quoted:
			quoted = c != '"'
		case c == '"':
			quoted = true
		case c == '\\' || c == '_' || c == '*':
			i++
		case c == '[' && i+1 < len(code) && strings.IndexByte("<>=", code[i+1]) >= 0:
			return true
		case c == '[':
			// A color or a locale: [Red], [$-407].
			if end := strings.IndexByte(code[i:], ']'); end >= 0 {
				i += end
			}
		case c == ';':
			i = len(code)
		default:
			plain.WriteByte(c)
		}
	}
	first := strings.ToUpper(plain.String())
	if e := strings.IndexByte(first, 'E'); e >= 0 && !strings.HasPrefix(first, "GENERAL") {
		mantissa := first[:e]
		if strings.Trim(mantissa, "0.") != "" || !strings.HasPrefix(mantissa, "0") {
			return true
		}
	}
	if dot := strings.LastIndexByte(first, '.'); dot >= 0 && strings.TrimRight(first[dot+1:], "%) ") == "" && strings.ContainsAny(first[:dot], "0#?") {
		return true
	}
	return false
}

// isBuiltInDate reports whether the built-in number format id is a date or
// a time: 14 to 22 and 45 to 47, and the ones of East Asian languages.
func isBuiltInDate(id int) bool {
	return id >= 14 && id <= 22 || id >= 45 && id <= 47 || id >= 27 && id <= 36 || id >= 50 && id <= 58
}

// isDateFormat reports whether the number format code shows a date or a
// time: it has y, m, d, h or s outside quotes, brackets and escapes
// ("[Red]0.00" and "0.00 \"days\"" are numbers, "dd.mm.yyyy" and
// "[h]:mm" are not).
func isDateFormat(code string) bool {
	quoted, bracket := false, false
	for i := 0; i < len(code); i++ {
		c := code[i]
		switch {
		case quoted:
			quoted = c != '"'
		case bracket:
			bracket = c != ']'
		case c == '"':
			quoted = true
		case c == '[':
			// [h], [mm] and [ss] are elapsed time.
			if rest := strings.ToLower(code[i+1:]); strings.HasPrefix(rest, "h") || strings.HasPrefix(rest, "m]") || strings.HasPrefix(rest, "mm]") || strings.HasPrefix(rest, "s") {
				return true
			}
			bracket = true
		case c == '\\' || c == '_' || c == '*':
			i++ // the next character is shown as it is, or is padding
		case c == ';':
			// Only the first section, of positive numbers, counts.
			return false
		case strings.IndexByte("yYmMdDhHsS", c) >= 0:
			return true
		case c == 'G' || c == 'g':
			if strings.HasPrefix(strings.ToLower(code[i:]), "general") {
				i += len("general") - 1
			}
		}
	}
	return false
}

// code is the code a row of cells names, or "" when its cell holds a
// value that a spreadsheet would show otherwise (a date, a formatted
// number): what the element's code is cannot be told then.
func (t *table) code(row []string) string {
	for i, c := range row {
		if i < len(t.cols) && t.cols[i] == "code" && !strings.Contains(c, dateMarker) && !strings.Contains(c, formatMarker) {
			return c
		}
	}
	return ""
}
