package erpmap

import (
	"errors"
	"fmt"
	"github.com/wbsctl/wbsctl/internal/output"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/expr-lang/expr/vm"
	"github.com/wbsctl/wbsctl/internal/codeindex"
	"github.com/wbsctl/wbsctl/internal/links"
	"github.com/wbsctl/wbsctl/internal/wbsfile"
	"github.com/wbsctl/wbsctl/sdk"
)

// Result is an export read through a map.
type Result struct {
	// File holds the records and problems under wbsfile's contract with
	// apply (see wbsfile.File): a problem names the export's cell (or
	// line), the element's code where one could be read, the map's rule
	// and its line; every row of a code with a problem is left out.
	File *wbsfile.File
	// Counts are the rows read, filtered, mapped and left out.
	Counts Counts
	// HeaderRow names the header's row ("Daten row 4", "line 3"), "" for
	// an export whose rows are objects.
	HeaderRow string
}

// Counts are what became of the rows below the header; blank rows are
// not counted.
type Counts struct {
	// Rows are the rows read below the header.
	Rows int `json:"rows"`
	// Filtered are the rows the map's where left out: counted, not read.
	Filtered int `json:"filtered"`
	// Mapped are the rows that gave a valid record (a line-item report
	// gives several rows an element).
	Mapped int `json:"mapped"`
	// Invalid are the rows left out for a problem of theirs or of their
	// element's.
	Invalid int `json:"invalid"`
	// Elements are the valid records: the elements the export states.
	Elements int `json:"elements"`
}

// String is the counts as a line of stderr: "read 12 rows: 2 filtered
// by where, 9 mapped to 8 elements, 1 invalid".
func (c Counts) String() string {
	return fmt.Sprintf("read %s: %d filtered by where, %d mapped to %s, %d invalid",
		output.Count(c.Rows, "row"), c.Filtered, c.Mapped, output.Count(c.Elements, "element"), c.Invalid)
}

// maxProblems bounds the problems kept, as wbsfile does.
const maxProblems = 1000

// Read maps the rows of t through m. It finds the header (the first row
// of the first 50 holding every name of header.find, or header.row) and
// binds every column the map names to it: a header not found, a merged
// header cell, a name the header gives twice and a column it lacks are
// refused as an *Error, each naming the map's line, before a row below
// the header is read. It then maps each row below the header: rows that
// where leaves out are counted, not read; rows of one code merge into
// one record when they agree, as CSV rows of one code do. checks are
// apply's relaxed checks (--allow-invisible-codes).
func (m *Map) Read(t *Table, checks wbsfile.Checks) (*Result, error) {
	var (
		b       *binding
		res     = &Result{File: &wbsfile.File{Notes: slices.Clone(t.Notes)}}
		r       *reader
		seen    int
		nearest headerCandidate
	)
	if t.Header != nil {
		var err error
		if b, err = m.bind(t, t.Header, 0); err != nil {
			return nil, err
		}
		r = newReader(b, res, checks)
	}
	for row := range t.Rows {
		if r != nil {
			r.row(row)
			continue
		}
		seen++
		if row.Err == nil && m.isHeader(row, &nearest) {
			var err error
			if b, err = m.bind(t, row.Cells, row.Line); err != nil {
				return nil, err
			}
			res.HeaderRow = t.rowName(row.Line)
			r = newReader(b, res, checks)
			continue
		}
		if seen >= maxHeaderRow || m.header.row > 0 && row.Line >= m.header.row {
			break
		}
	}
	if r == nil {
		return nil, m.headerNotFound(t, nearest)
	}
	r.finish()
	return res, nil
}

// headerCandidate is the row that came nearest to the header: the most
// names of header.find.
type headerCandidate struct {
	line    int
	held    int
	missing []string
}

// isHeader reports whether row is the header, and keeps the nearest row
// so far.
func (m *Map) isHeader(row Row, nearest *headerCandidate) bool {
	if m.header.row > 0 {
		return row.Line == m.header.row && !blank(row.Cells)
	}
	var missing []string
	for _, name := range m.header.find {
		if _, ok := findColumn(row.Cells, name); !ok {
			missing = append(missing, name)
		}
	}
	if held := len(m.header.find) - len(missing); held > nearest.held {
		*nearest = headerCandidate{line: row.Line, held: held, missing: missing}
	}
	return len(missing) == 0
}

// findColumn is the column of cells that name names: the one cell equal
// to it, else the one equal to it in another case or with spaces around
// it.
func findColumn(cells []string, name string) (int, bool) {
	found := -1
	for i, c := range cells {
		if c == name {
			if found >= 0 {
				return 0, false
			}
			found = i
		}
	}
	if found >= 0 {
		return found, true
	}
	trimmed := strings.TrimSpace(name)
	for i, c := range cells {
		if strings.EqualFold(strings.TrimSpace(c), trimmed) {
			if found >= 0 {
				return 0, false
			}
			found = i
		}
	}
	return found, found >= 0
}

func (m *Map) headerNotFound(t *Table, nearest headerCandidate) error {
	p := MapProblem{File: m.name, Line: m.header.line, Rule: "header"}
	switch {
	case m.header.row > 0:
		p.Message = fmt.Sprintf("row %d of the export is blank or missing: give header.row the header's row", m.header.row)
	case nearest.held > 0:
		p.Message = fmt.Sprintf("no row of the first %d holds %s; the nearest, %s, lacks %s", maxHeaderRow, quoteAll(m.header.find), t.rowName(nearest.line), quoteAll(nearest.missing))
	default:
		p.Message = fmt.Sprintf("no row of the first %d holds %s", maxHeaderRow, quoteAll(m.header.find))
	}
	return &Error{Problems: []MapProblem{p}}
}

// binding is a map bound to an export's header: each rule a function of
// a row's cells.
type binding struct {
	m      *Map
	t      *Table
	header []string
	// line is the header's row, 0 for the members of JSON objects.
	line  int
	where *program

	// programs are the expressions of the rules other than where, run on
	// each row where keeps; env holds the cells they name, refilled for
	// each row from cells, one entry per name.
	programs []*program
	env      map[string]any
	cells    []envCell
	machine  vm.VM

	code   boundText
	texts  []*boundText // of wbsfile.TextFields, nil where the map leaves one out
	active *boundActive
	orgs   []boundText
}

// boundText is a text rule bound to the header; col is the cell a problem
// of it names: its column, an expression's first, or -1.
type boundText struct {
	rule       *textRule
	entityType string
	col        int
	read       textFn
}

type boundActive struct {
	rule *activeRule
	col  int
	cell textFn
	expr *program
}

// envCell is a name of the expressions, the column it reads, and the
// cell it read last, boxed: a column that repeats the row above (a
// company code, a status) costs no allocation.
type envCell struct {
	name string
	col  int
	last any
}

// fill puts the cells of row that the expressions name into b.env.
func (b *binding) fill(row []string) {
	for i := range b.cells {
		c := &b.cells[i]
		v := ""
		if c.col < len(row) {
			v = row[c.col]
		}
		if last, _ := c.last.(string); last != v || c.last == nil {
			c.last = v
		}
		b.env[c.name] = c.last
	}
}

// bind binds m to header, the row line of t (0: the members of JSON
// objects), or refuses every name it cannot find there.
func (m *Map) bind(t *Table, header []string, line int) (*binding, error) {
	// A reader may reuse a row's cells for the next (encoding/csv's
	// ReuseRecord): the header is kept as a copy.
	header = slices.Clone(header)
	b := &binding{m: m, t: t, header: header, line: line}
	var problems []MapProblem
	place := "the members of the export's objects"
	if line > 0 {
		place = t.rowName(line)
	}
	for _, r := range t.Merged {
		if line > 0 && r.FirstRow <= line && line <= r.LastRow {
			problems = append(problems, MapProblem{File: m.name, Line: m.header.line, Rule: "header", Place: r.Name,
				Message: fmt.Sprintf("the header row has merged cells, %s: unmerge them, so that each column has a name of its own", r.Name)})
		}
	}
	// columns holds the column of each name found, by name.
	columns := map[string]int{}
	resolve := func(name, rule string, ruleLine int, expr bool) (int, bool) {
		if col, ok := columns[name]; ok {
			return col, true
		}
		col, msg := lookup(t, header, line, place, name, expr)
		if msg != "" {
			problems = append(problems, MapProblem{File: m.name, Line: ruleLine, Rule: rule, Place: place, Message: msg})
			return -1, false
		}
		columns[name] = col
		return col, true
	}
	for _, name := range m.header.find {
		resolve(name, "header.find", m.header.line, false)
	}
	b.env = map[string]any{}
	bindExpr := func(e *expression, rule string, ruleLine int) (*program, bool) {
		p, ok := &program{rule: rule, line: ruleLine, col: -1}, true
		for _, name := range e.names {
			col, found := resolve(name, rule, ruleLine, true)
			ok = ok && found
			if p.col < 0 {
				p.col = col
			}
		}
		if !ok {
			return nil, false
		}
		prog, err := e.compile(columns)
		if err != nil {
			problems = append(problems, MapProblem{File: m.name, Line: ruleLine, Rule: rule, Place: place, Message: err.Error()})
			return nil, false
		}
		p.prog = prog
		for _, name := range e.names {
			if _, seen := b.env[name]; !seen {
				b.env[name] = ""
				b.cells = append(b.cells, envCell{name: name, col: columns[name]})
			}
		}
		return p, true
	}
	text := func(r *textRule, entityType string) boundText {
		bt := boundText{rule: r, entityType: entityType, col: -1}
		switch {
		case r.value != nil:
			v := *r.value
			bt.read = func([]string) string { return v }
		case r.expr != nil:
			if p, ok := bindExpr(r.expr, r.path, r.line); ok {
				b.programs = append(b.programs, p)
				bt.col, bt.read = p.col, func([]string) string { return p.text }
			}
		default:
			if col, ok := resolve(r.column, r.path, r.line, false); ok {
				bt.col, bt.read = col, cellFn(col)
				if r.alpha {
					cell := bt.read
					bt.read = func(row []string) string { return alpha(cell(row)) }
				}
			}
		}
		return bt
	}
	if m.where != nil {
		b.where, _ = bindExpr(m.where.expr, "where", m.where.line)
	}
	b.code = text(&m.code, "")
	b.texts = make([]*boundText, len(m.texts))
	for i, t := range m.texts {
		if t != nil {
			bt := text(t, "")
			b.texts[i] = &bt
		}
	}
	if a := m.active; a != nil {
		ba := &boundActive{rule: a, col: -1}
		if a.expr != nil {
			if p, ok := bindExpr(a.expr, "isActive", a.line); ok {
				b.programs = append(b.programs, p)
				ba.col, ba.expr = p.col, p
			}
		} else if col, ok := resolve(a.column, "isActive", a.line, false); ok {
			ba.col, ba.cell = col, cellFn(col)
		}
		b.active = ba
	}
	for i := range m.organizations {
		o := &m.organizations[i]
		b.orgs = append(b.orgs, text(&o.textRule, o.entityType))
	}
	if len(problems) > 0 {
		return nil, &Error{Problems: problems}
	}
	return b, nil
}

// lookup finds name in header (row line of t), or says why it cannot:
// not there, or there twice.
func lookup(t *Table, header []string, line int, place, name string, expr bool) (int, string) {
	var exact []int
	for i, h := range header {
		if h == name {
			exact = append(exact, i)
		}
	}
	places := func(cols []int) string {
		names := make([]string, len(cols))
		for i, c := range cols {
			names[i] = t.place(line, c)
			if names[i] == "" {
				names[i] = fmt.Sprintf("column %d", c+1)
			}
		}
		return strings.Join(names, " and ")
	}
	switch {
	case len(exact) == 1:
		return exact[0], ""
	case len(exact) > 1:
		return -1, fmt.Sprintf("the header, %s, names %q twice (%s): which to read cannot be told", place, name, places(exact))
	}
	var folded []int
	for i, h := range header {
		if strings.EqualFold(strings.TrimSpace(h), strings.TrimSpace(name)) {
			folded = append(folded, i)
		}
	}
	switch {
	case len(folded) == 1:
		return folded[0], ""
	case len(folded) > 1:
		return -1, fmt.Sprintf("the header, %s, holds %q more than once in other cases or spacing (%s): name one as the header writes it", place, name, places(folded))
	}
	what := "unknown column"
	if expr {
		what = "unknown name"
	}
	if near := nearestName(header, name); near != "" {
		return -1, fmt.Sprintf("%s %s in the header, %s (did you mean %s?)", what, name, place, near)
	}
	return -1, fmt.Sprintf("%s %s in the header, %s (its columns: %s)", what, name, place, headerList(header))
}

// nearestName is the header's name nearest to name, when near enough to
// be a misspelling of it.
func nearestName(header []string, name string) string {
	best, bestDist := "", -1
	for _, h := range header {
		if h == "" {
			continue
		}
		d := distance(strings.ToLower(h), strings.ToLower(name))
		if d <= max(2, len([]rune(name))/4) && (bestDist < 0 || d < bestDist) {
			best, bestDist = h, d
		}
	}
	return best
}

// distance is the Levenshtein distance of a and b, in runes.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > 100 || len(rb) > 100 {
		return max(len(ra), len(rb))
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// headerList is the header's names for a message, at most 12.
func headerList(header []string) string {
	var names []string
	for _, h := range header {
		if h != "" {
			names = append(names, strconv.Quote(h))
		}
	}
	if len(names) > 12 {
		return strings.Join(names[:12], ", ") + fmt.Sprintf(" and %d more", len(names)-12)
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

func blank(cells []string) bool {
	for _, c := range cells {
		if c != "" {
			return false
		}
	}
	return true
}

// reader maps the rows below the header into records.
type reader struct {
	b      *binding
	res    *Result
	checks wbsfile.Checks

	recs []wbsfile.Record
	// flawed are the records a problem of their row left out.
	flawed map[int]bool
	// bad holds the codes the problems name; unnamed the lines of
	// problems that name none.
	bad     map[string]bool
	unnamed map[int]bool

	texts   slab[string]
	actives slab[bool]
	// interned holds one copy of each organization code, checked against
	// the spec's limits once, so that the links of 200,000 rows hold a
	// few hundred strings; last is the latest of each organization rule,
	// as a column often repeats the row above.
	interned map[string]organizationCode
	last     []lastOrganization
	orgs     []sdk.BusinessOrganization
}

// lastOrganization is the latest cell of an organization rule and its
// code.
type lastOrganization struct {
	cell string
	code organizationCode
}

// organizationCode is an organization's code, and the limit of the spec
// it breaks (nil: none).
type organizationCode struct {
	code      string
	violation *sdk.Violation
}

func newReader(b *binding, res *Result, checks wbsfile.Checks) *reader {
	return &reader{b: b, res: res, checks: checks, recs: make([]wbsfile.Record, 0, b.t.SizeHint),
		flawed: map[int]bool{}, bad: map[string]bool{}, unnamed: map[int]bool{}, interned: map[string]organizationCode{},
		last: make([]lastOrganization, len(b.orgs))}
}

// problem reports a problem of the row line, at column col (-1: the
// row), of the rule of ruleLine: a row that cannot be read names the
// header's rule, under which it was read.
func (r *reader) problem(line, col int, code, field string, ruleLine int, msg string) {
	t := r.b.t
	ref := ""
	if ruleLine > 0 {
		ref = r.b.m.at(ruleLine)
	}
	if t.Cell == nil && col >= 0 && col < len(r.b.header) {
		ref = strings.TrimSuffix("column "+strconv.Quote(r.b.header[col])+", "+ref, ", ")
	}
	if ref != "" {
		msg += " (" + ref + ")"
	}
	p := wbsfile.Problem{Line: line, Cell: t.place(line, col), Code: code, Field: field, Message: msg}
	if code != "" {
		r.bad[code] = true
	} else {
		if r.res.File.CodeUnknown == nil {
			r.res.File.CodeUnknown = &p
		}
		r.unnamed[line] = true
	}
	if len(r.res.File.Problems) < maxProblems {
		r.res.File.Problems = append(r.res.File.Problems, p)
	}
}

// run runs p on row, whose cells are in the binding's env, or reports
// the row invalid.
func (r *reader) run(row Row, p *program) bool {
	if err := p.run(&r.b.machine, r.b.env); err != nil {
		r.res.Counts.Invalid++
		r.problem(row.Line, p.col, "", p.rule, p.line, "the expression fails: "+err.Error())
		return false
	}
	return true
}

// row maps one row below the header.
func (r *reader) row(row Row) {
	b, c := r.b, &r.res.Counts
	if row.Err != nil {
		c.Rows++
		c.Invalid++
		r.problem(row.Line, -1, "", "", b.m.header.line, "unreadable row: "+row.Err.Error())
		return
	}
	cells := row.Cells
	if blank(cells) {
		return
	}
	c.Rows++
	if b.t.ExactCells && len(cells) != len(b.header) {
		c.Invalid++
		r.problem(row.Line, -1, "", "", b.m.header.line, fmt.Sprintf("has %d cells, the header %d: a delimiter inside a cell that is not in quotes shifts the cells after it", len(cells), len(b.header)))
		return
	}
	if len(b.cells) > 0 {
		b.fill(cells)
	}
	if b.where != nil {
		if !r.run(row, b.where) {
			return
		}
		if !b.where.b {
			c.Filtered++
			return
		}
	}
	for _, p := range b.programs {
		if !r.run(row, p) {
			return
		}
	}
	index := len(r.recs)
	rec := wbsfile.Record{Line: int32(row.Line), Code: strings.Clone(b.code.read(cells))}
	fail := func(t *boundText, ruleLine int, field, msg string) {
		col := -1
		if t != nil {
			col = t.col
		}
		r.flawed[index] = true
		r.problem(row.Line, col, rec.Code, field, ruleLine, msg)
	}
	for i, t := range b.texts {
		if t != nil {
			*wbsfile.TextFields[i].Of(&rec.Texts) = r.texts.add(strings.Clone(t.read(cells)))
		}
	}
	if a := b.active; a != nil {
		v, stated, msg := r.activeOf(a, cells)
		if msg != "" {
			r.flawed[index] = true
			r.problem(row.Line, a.col, rec.Code, "isActive", a.msgLine(), msg)
		} else if stated {
			rec.IsActive = r.actives.add(v)
		}
	}
	if b.m.organizationsSet {
		r.orgs = r.orgs[:0]
		for i := range b.orgs {
			o := &b.orgs[i]
			v := o.read(cells)
			if v == "" {
				continue // an empty cell: no link of this type
			}
			oc := r.organizationCode(i, v)
			if oc.violation != nil {
				fail(o, o.rule.line, o.rule.path, oc.violation.Message+" (limit: "+oc.violation.Limit+")")
			}
			r.orgs = append(r.orgs, sdk.BusinessOrganization{Code: oc.code, EntityType: o.entityType})
		}
		rec.Organizations = r.shareOrgs()
		rec.OrganizationsSet = true
	}
	// The spec's limits, each violation named by the rule that gave it;
	// the organizations' codes were checked by organizationCode.
	req := sdk.CreateWBSElementRequest{Code: rec.Code}
	for _, f := range wbsfile.TextFields {
		*f.Create(&req) = *f.Of(&rec.Texts)
	}
	if err := req.Validate(); err != nil {
		var ve *sdk.ValidationError
		if errors.As(err, &ve) {
			for _, v := range ve.Violations {
				t := &b.code
				if f := slices.Index(wbsfile.TextFieldNames(), v.Field); f >= 0 {
					t = b.texts[f]
				}
				fail(t, t.rule.line, t.rule.path, v.Message+" (limit: "+v.Limit+")")
			}
		}
	}
	if msg := wbsfile.CodeProblem(rec.Code, r.checks); msg != "" {
		fail(&b.code, b.code.rule.line, "wbsElementCode", msg)
	}
	r.recs = append(r.recs, rec)
}

// msgLine is the line a problem of a cell's value names: the map's line
// for a status no entry matches, else the rule's.
func (a *boundActive) msgLine() int {
	if len(a.rule.entries) > 0 {
		return a.rule.mapLine
	}
	return a.rule.line
}

// activeOf is the isActive a row gives: whether it states one, or the
// problem of its cell.
func (r *reader) activeOf(a *boundActive, cells []string) (v, stated bool, problem string) {
	rule := a.rule
	if a.expr != nil {
		return a.expr.b, true, ""
	}
	cell := a.cell(cells)
	if len(rule.entries) == 0 {
		v, stated, err := wbsfile.ParseBool(cell)
		if err != nil {
			return false, false, err.Error()
		}
		return v, stated, ""
	}
	for _, e := range rule.entries {
		if rule.words && hasWord(cell, e.key) || !rule.words && strings.TrimSpace(cell) == e.key {
			return e.value, true, ""
		}
	}
	if rule.orElse != nil {
		return *rule.orElse, true, ""
	}
	if strings.TrimSpace(cell) == "" {
		return false, false, "is empty, which matches no entry of isActive.map: give isActive.else true or false for such rows"
	}
	return false, false, fmt.Sprintf("%q matches no entry of isActive.map", cell)
}

// organizationCode is the one copy of the organization code cell, which
// the organization rule i gave, and the limit it breaks.
func (r *reader) organizationCode(i int, cell string) organizationCode {
	last := &r.last[i]
	if last.cell == cell && last.code.code != "" {
		return last.code
	}
	oc, ok := r.interned[cell]
	if !ok {
		oc.code = strings.Clone(cell)
		req := sdk.CreateWBSElementRequest{Code: "-", BusinessOrganizations: []sdk.BusinessOrganization{{Code: oc.code, EntityType: "-"}}}
		var ve *sdk.ValidationError
		if err := req.Validate(); errors.As(err, &ve) && len(ve.Violations) > 0 {
			oc.violation = &ve.Violations[0]
		}
		if len(r.interned) < 1<<16 {
			r.interned[oc.code] = oc
		}
	}
	last.cell, last.code = oc.code, oc
	return oc
}

// shareOrgs is the held list equal to r.orgs (links.Share): r.orgs is
// reused row after row, so a list Share does not hold is copied.
func (r *reader) shareOrgs() []sdk.BusinessOrganization {
	if len(r.orgs) == 0 {
		return []sdk.BusinessOrganization{}
	}
	list := links.Share(r.orgs)
	if &list[0] == &r.orgs[0] {
		list = slices.Clip(slices.Clone(r.orgs))
	}
	return list
}

// finish merges the rows of one code and sorts the records into valid
// and invalid, as wbsfile does with the rows of a CSV file.
func (r *reader) finish() {
	file, c := r.res.File, &r.res.Counts
	if c.Rows == 0 {
		// A problem of the whole export, not of a row left out.
		line := max(1, r.b.line)
		r.problem(line, -1, "", "", r.b.m.header.line, "the export holds no row below the header")
		delete(r.unnamed, line)
	} else if c.Filtered == c.Rows {
		file.Notes = append(file.Notes, fmt.Sprintf("where (%s) left out every row", r.b.m.at(r.b.m.where.line)))
	}
	recs := r.recs
	merged := map[int]bool{}
	first := -1
	for _, i32 := range codeindex.New(len(recs), func(i int) string { return recs[i].Code }).InOrder() {
		i := int(i32)
		rec := &recs[i]
		if rec.Code == "" || first < 0 || recs[first].Code != rec.Code {
			first = i
			continue
		}
		if r.flawed[first] || r.flawed[i] {
			// A row with a problem is left out with its code: what it
			// says of the element is not compared.
			continue
		}
		if r.disagree(&recs[first], rec, i) {
			continue
		}
		into := &recs[first]
		joined := append(slices.Clip(into.Organizations), rec.Organizations...)
		if len(joined) > 0 {
			into.Organizations = links.Share(links.Dedupe(joined))
		}
		merged[i] = true
	}
	file.InvalidCodes = slices.Sorted(maps.Keys(r.bad))
	// The valid records are kept in place, in the rows' order: the
	// records of 200,000 rows are not copied.
	kept := recs[:0]
	for i, rec := range recs {
		left := r.flawed[i] || r.bad[rec.Code]
		if left {
			c.Invalid++
		} else {
			c.Mapped++
		}
		switch {
		case merged[i]:
		case left:
			file.Invalid = append(file.Invalid, rec)
		default:
			kept = append(kept, rec)
		}
	}
	clear(recs[len(kept):])
	file.Records = slices.Clip(kept)
	// A row no record could be made of (unreadable, cells shifted) is
	// left out all the same, by its line.
	for _, rec := range file.Invalid {
		if rec.Code == "" {
			delete(r.unnamed, int(rec.Line))
		}
	}
	for _, line := range slices.Sorted(maps.Keys(r.unnamed)) {
		file.Invalid = append(file.Invalid, wbsfile.Record{Line: int32(line)})
	}
	c.Elements = len(file.Records)
}

// disagree reports, as a problem of rec (the record of index i), a field
// in which it differs from first, an earlier row of its code.
func (r *reader) disagree(first, rec *wbsfile.Record, i int) bool {
	b := r.b
	var (
		field, here, there string
		rule               *boundText
		ruleLine, col      int
	)
	// A text is stated by every row or by none: the map gives it or not.
	text := -1
	for i, t := range b.texts {
		if f := wbsfile.TextFields[i]; t != nil && first.Text(f) != rec.Text(f) {
			text = i
			break
		}
	}
	switch {
	case text >= 0:
		f := wbsfile.TextFields[text]
		field, rule = f.Name, b.texts[text]
		here, there = strconv.Quote(rec.Text(f)), strconv.Quote(first.Text(f))
		ruleLine, col = rule.rule.line, rule.col
	case (first.IsActive == nil) != (rec.IsActive == nil) || first.IsActive != nil && *first.IsActive != *rec.IsActive:
		field = "isActive"
		here, there = boolText(rec.IsActive), boolText(first.IsActive)
		ruleLine, col = b.active.rule.line, b.active.col
	default:
		return false
	}
	firstPlace := r.b.t.place(int(first.Line), col)
	if firstPlace == "" {
		firstPlace = fmt.Sprintf("line %d", first.Line)
	}
	r.flawed[i] = true
	r.problem(int(rec.Line), col, rec.Code, field, ruleLine,
		fmt.Sprintf("is %s here but %s in %s: rows of one element must agree", here, there, firstPlace))
	return true
}

func boolText(b *bool) string {
	if b == nil {
		return "not stated"
	}
	return strconv.FormatBool(*b)
}

// slab hands out pointers to values kept in blocks, so that the records'
// descriptions and flags are a few large objects for the collector to
// trace, not one small object each.
type slab[T any] struct{ block []T }

func (s *slab[T]) add(v T) *T {
	if len(s.block) == cap(s.block) {
		s.block = make([]T, 0, 1024)
	}
	s.block = append(s.block, v)
	return &s.block[len(s.block)-1]
}
