package wbsfile

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/wbsctl/wbsctl/internal/codeindex"
	"github.com/wbsctl/wbsctl/internal/links"
	"github.com/wbsctl/wbsctl/internal/notation"
)

// CSV columns and their aliases, lower case: a text field's column is
// its name.
var csvColumns = func() map[string]string {
	m := map[string]string{
		"wbselementcode": "code", "code": "code",
		"isactive": "active", "active": "active",
		"businessorganizations": "orgs", "organizations": "orgs",
	}
	for _, f := range TextFields {
		m[strings.ToLower(f.Name)] = f.Name
	}
	return m
}()

func (p *parser) csv(data []byte) []Record {
	delim, ok := p.findDelimiter(data)
	if !ok {
		return nil
	}
	r := csv.NewReader(bytes.NewReader(data))
	r.Comma = delim
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err == io.EOF {
		return nil
	}
	if err != nil {
		p.problem(Problem{Line: 1, Message: "unreadable header: " + err.Error()})
		return nil
	}
	// One record a line, at most: sized once, not grown row by row.
	t := p.newTable(header, 1, bytes.Count(data, []byte("\n"))+1)
	if t == nil {
		return nil
	}
	r.ReuseRecord = true
	for {
		row, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			line := 0
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				line = pe.Line
			}
			p.problem(Problem{Line: line, Message: "unreadable row: " + err.Error()})
			continue
		}
		line, _ := r.FieldPos(0)
		if len(row) != len(header) {
			p.problem(Problem{Line: line, Message: fmt.Sprintf("has %d cells, the header %d", len(row), len(header))})
			continue
		}
		t.add(line, row)
	}
	return t.records()
}

// findDelimiter is the delimiter of the options, or the one of ',', ';'
// and TAB that the header holds (',' when it holds none: a file of one
// column). A header that holds more than one is refused: which separates
// its cells cannot be told.
func (p *parser) findDelimiter(data []byte) (rune, bool) {
	if p.opts.Delimiter != 0 {
		return p.opts.Delimiter, true
	}
	found := headerDelimiters(data)
	switch len(found) {
	case 0:
		return ',', true
	case 1:
		return rune(found[0]), true
	}
	names := make([]string, len(found))
	for i, c := range found {
		names[i] = delimiterName(rune(c))
	}
	p.problem(Problem{Line: 1, Message: fmt.Sprintf("the header holds %s: give the one that separates the cells with --delimiter", strings.Join(names, " and "))})
	return 0, false
}

// delimiter is the delimiter of data, as far as it can be told: for
// naming the column of a problem.
func (p *parser) delimiter(data []byte) rune {
	if p.opts.Delimiter != 0 {
		return p.opts.Delimiter
	}
	if found := headerDelimiters(data); len(found) == 1 {
		return rune(found[0])
	}
	return ','
}

// headerDelimiters are the candidate delimiters the first line of data
// holds outside quotes, in the order ',', ';', TAB.
func headerDelimiters(data []byte) []byte {
	header, _, _ := bytes.Cut(data, []byte("\n"))
	var found []byte
	for _, c := range []byte{',', ';', '\t'} {
		quoted := false
		for _, b := range header {
			if b == '"' {
				quoted = !quoted
			}
			if b == c && !quoted {
				found = append(found, c)
				break
			}
		}
	}
	return found
}

// delimiterName is how a message shows a delimiter.
func delimiterName(r rune) string {
	if r == '\t' {
		return "TAB"
	}
	return fmt.Sprintf("'%c'", r)
}

// table turns the rows of a CSV file or a workbook, under their header,
// into records.
type table struct {
	p      *parser
	header []string
	cols   []string // the field of each column
	text   []int    // the text field of each column, its index in TextFields; -1 for none
	// textCols is the number of columns of text fields.
	textCols int
	orgs     bool // the header has an organizations column
	recs     []Record
	// The cells a record points to are kept in two arrays, not one small
	// object each, so that the collector has less to trace while the
	// records are held through a run; the rows themselves are not kept.
	// (A row that names a column twice is refused, but may grow an
	// array: what the records point to stays as it was.)
	texts   []string
	actives []bool
}

// newTable reads the header, on line line, of a file of about rows rows
// (0: not known), or reports its problems and returns nil when it names
// no code column.
func (p *parser) newTable(header []string, line, rows int) *table {
	t := &table{p: p, header: header, cols: make([]string, len(header)), text: make([]int, len(header)),
		recs: make([]Record, 0, rows), actives: make([]bool, 0, rows)}
	seen := map[string]bool{}
	p.columns = map[string]int{}
	for i, h := range header {
		name, ok := csvColumns[strings.ToLower(strings.TrimSpace(h))]
		switch {
		case !ok:
			p.problem(Problem{Line: line, Cell: p.sheet.cell(line, i), Field: h, Message: "unknown column (known: " + strings.Join(columns, ", ") + ")"})
		case seen[name]:
			p.problem(Problem{Line: line, Cell: p.sheet.cell(line, i), Field: h, Message: "column given twice"})
		default:
			p.columns[name] = i
		}
		seen[name], t.cols[i] = true, name
		if t.text[i] = textFieldIndex(name); t.text[i] >= 0 {
			t.textCols++
		}
	}
	t.texts = make([]string, 0, rows*t.textCols)
	if !seen["code"] {
		p.problem(Problem{Line: line, Field: "wbsElementCode", Message: "the header has no wbsElementCode column"})
		return nil
	}
	t.orgs = seen["orgs"]
	return t
}

// add reads the row of line line, a cell for each column of the header.
func (t *table) add(line int, row []string) {
	p := t.p
	rec := Record{Line: int32(line)}
	// The code first, for the problems of the cells before it. A row's
	// cells are parts of one string, the line: the code and the texts
	// are copied, so that the line is not held.
	for i, cell := range row {
		if t.cols[i] == "code" {
			rec.Code = strings.Clone(cell)
		}
	}
	for i, cell := range row {
		if f := t.text[i]; f >= 0 {
			t.texts = append(t.texts, strings.Clone(cell))
			*TextFields[f].Of(&rec.Texts) = &t.texts[len(t.texts)-1]
			continue
		}
		switch t.cols[i] {
		case "active":
			b, stated, err := ParseBool(cell)
			if err != nil {
				p.recordProblem(&rec, Problem{Line: line, Field: "isActive", Message: err.Error()})
			}
			if stated {
				t.actives = append(t.actives, b)
				rec.IsActive = &t.actives[len(t.actives)-1]
			}
		case "orgs":
			orgs, err := notation.Parse(cell)
			if err != nil {
				p.recordProblem(&rec, Problem{Line: line, Field: "businessOrganizations", Message: err.Error()})
			}
			// Shared at once, so that the lists parsed, and the lines
			// their strings are part of, are not held until check (a
			// held list keeps the line it was first read from).
			rec.Organizations, rec.OrganizationsSet = links.Share(orgs), true
		}
	}
	// Repeated rows of one code add organizations, when the rest agrees:
	// a row is merged into the latest record of its code. A row that
	// follows that record is merged here, the others by records.
	if n := len(t.recs); n > 0 && t.orgs && rec.Code != "" && t.recs[n-1].Code == rec.Code && sameFields(t.recs[n-1], rec) {
		t.recs[n-1].Organizations = append(t.recs[n-1].Organizations, rec.Organizations...)
		t.recs[n-1].flawed = t.recs[n-1].flawed || rec.flawed
		return
	}
	t.recs = append(t.recs, rec)
}

// records returns the records of the rows read, once those of a code that
// other rows came between are merged as add merges the others: in file
// order, each into the latest record of its code before it, when the
// fields agree. Merging after reading, through the codes sorted, holds
// 4 bytes a record, where a map from code to record while reading held
// eight times that.
func (t *table) records() []Record {
	if !t.orgs {
		return t.recs
	}
	recs := t.recs
	byCode := codeindex.New(len(recs), func(i int) string { return recs[i].Code })
	merged := map[int32]bool{}
	into := int32(-1) // the latest record of the code at hand
	for k, i := range byCode.InOrder() {
		if k == 0 || recs[i].Code == "" || recs[i].Code != recs[into].Code || !sameFields(recs[into], recs[i]) {
			into = i
			continue
		}
		recs[into].Organizations = append(recs[into].Organizations, recs[i].Organizations...)
		recs[into].flawed = recs[into].flawed || recs[i].flawed
		merged[i] = true
	}
	if len(merged) == 0 {
		return recs
	}
	kept := recs[:0]
	for i, r := range recs {
		if !merged[int32(i)] {
			kept = append(kept, r)
		}
	}
	clear(recs[len(kept):])
	return kept
}

// sameFields reports whether two rows of one code state the same fields
// other than links, alike.
func sameFields(a, b Record) bool {
	for _, f := range TextFields {
		x, y := *f.Of(&a.Texts), *f.Of(&b.Texts)
		if (x == nil) != (y == nil) || deref(x) != deref(y) {
			return false
		}
	}
	return (a.IsActive == nil) == (b.IsActive == nil) && (a.IsActive == nil || *a.IsActive == *b.IsActive)
}

// ParseBool reads a boolean cell as apply reads isActive in CSV and
// workbooks (and a column map reads one): the booleans of
// spreadsheetBooleans, in any case, spaces around them ignored; an empty
// cell is not stated.
func ParseBool(s string) (b, stated bool, err error) {
	v := strings.ToLower(strings.TrimSpace(s))
	if v == "" {
		return false, false, nil
	}
	if b, ok := spreadsheetBooleans[v]; ok {
		return b, true, nil
	}
	return false, false, fmt.Errorf("%q is not a boolean (true/false, yes/no, 1/0, WAHR/FALSCH and the like)", s)
}

// spreadsheetBooleans are the booleans a CSV file may hold, in lower
// case: true and false, yes and no, 1 and 0, y and n, and TRUE and FALSE
// as Excel and LibreOffice write them in the common European languages
// (German, French, Italian, Spanish, Portuguese, Dutch, Swedish, Danish,
// Norwegian, Finnish, Polish, Czech, Hungarian).
var spreadsheetBooleans = map[string]bool{
	"true": true, "yes": true, "1": true, "y": true,
	"false": false, "no": false, "0": false, "n": false,
	"wahr": true, "falsch": false, // de
	"vrai": true, "faux": false, // fr
	"vero": true, "falso": false, // it, es, pt
	"verdadero": true, "verdadeiro": true, // es, pt
	"waar": true, "onwaar": false, // nl
	"sant": true, "falskt": false, // sv
	"sand": true, "falsk": false, // da, nb
	"sann": true, "usann": false, // nb
	"tosi": true, "epätosi": false, // fi
	"prawda": true, "fałsz": false, // pl
	"pravda": true, "nepravda": false, // cs
	"igaz": true, "hamis": false, // hu
}

// csvColumnAt names the column of a CSV file with delimiter delim that
// byte at falls in, by the header, or "" when it cannot tell (a quoted
// cell over several lines).
func csvColumnAt(data []byte, at int, delim rune) string {
	header, _, _ := bytes.Cut(data, []byte("\n"))
	r := csv.NewReader(bytes.NewReader(header))
	r.Comma = delim
	names, err := r.Read()
	if err != nil {
		return ""
	}
	start := bytes.LastIndexByte(data[:at], '\n') + 1
	col, quoted := 0, false
	for _, c := range data[start:at] {
		switch {
		case c == '"':
			quoted = !quoted
		case rune(c) == delim && !quoted:
			col++
		}
	}
	if start == 0 || col >= len(names) {
		return ""
	}
	return strings.TrimSpace(names[col])
}
