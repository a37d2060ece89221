package erpmap

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/expr-lang/expr/conf"
	"github.com/wbsctl/wbsctl/internal/wbsfile"
)

// A suggestion recognises the columns that SAP, Oracle EBS, Dynamics 365
// and Business Central name in their exports of WBS elements (project
// tasks), under their English and German labels and their technical
// names. Names are compared without case, spaces, '-', '_', '.' and '/':
// "Job Task No." is jobtaskno, TASK_NUMBER and TaskNumber tasknumber.

// column roles of a suggestion.
const (
	roleCode = iota + 1
	roleTask // a task's number within its project: the code with the project's
	roleProject
	roleDescription
	roleStatus
	roleOrg
	roleRowType
)

// known is a column a suggestion recognises.
type known struct {
	role       int
	entityType string // of roleOrg
	comment    string
}

// knownColumns are the names recognised, normalized (normalizeName).
var knownColumns = map[string]known{
	// SAP PS (PRPS through SE16N, CN43N, CJI3): labels in German and
	// English, and the table's field names.
	"pspelement":    {role: roleCode, comment: "SAP: WBS element (POSID)"},
	"wbselement":    {role: roleCode, comment: "SAP: WBS element (POSID)"},
	"posid":         {role: roleCode, comment: "SAP: WBS element"},
	"bezeichnung":   {role: roleDescription, comment: "SAP: description (POST1)"},
	"post1":         {role: roleDescription, comment: "SAP: description"},
	"buchungskreis": {role: roleOrg, entityType: "company", comment: "SAP: company code (PBUKR)"},
	"companycode":   {role: roleOrg, entityType: "company", comment: "SAP: company code (PBUKR)"},
	"pbukr":         {role: roleOrg, entityType: "company", comment: "SAP: company code"},
	"profitcenter":  {role: roleOrg, entityType: "profitCenter", comment: "SAP: profit center (PRCTR)"},
	"prctr":         {role: roleOrg, entityType: "profitCenter", comment: "SAP: profit center"},
	"werk":          {role: roleOrg, entityType: "plant", comment: "SAP: plant (WERKS)"},
	"plant":         {role: roleOrg, entityType: "plant", comment: "SAP: plant (WERKS)"},
	"werks":         {role: roleOrg, entityType: "plant", comment: "SAP: plant"},
	"kostenstelle":  {role: roleOrg, entityType: "costCenter", comment: "SAP: cost center (KOSTL)"},
	"costcenter":    {role: roleOrg, entityType: "costCenter", comment: "SAP: cost center (KOSTL)"},
	"kostl":         {role: roleOrg, entityType: "costCenter", comment: "SAP: cost center"},
	"systemstatus":  {role: roleStatus, comment: "SAP: system status, several a cell"},
	"sttxt":         {role: roleStatus, comment: "SAP: system status, several a cell"},
	// Oracle E-Business Suite Projects (PA_TASKS).
	"tasknumber":                  {role: roleTask, comment: "Oracle: TASK_NUMBER"},
	"projectnumber":               {role: roleProject, comment: "Oracle: the project's number"},
	"taskname":                    {role: roleDescription, comment: "Oracle TASK_NAME, Dynamics TaskName"},
	"chargeableflag":              {role: roleStatus, comment: "Oracle: whether the task takes charges"},
	"carryingoutorganizationname": {role: roleOrg, entityType: "organization", comment: "Oracle: the carrying-out organization"},
	"carryingoutorganizationid":   {role: roleOrg, entityType: "organization", comment: "Oracle: the carrying-out organization"},
	// Dynamics 365 (project tasks, the WBS).
	"projectid":         {role: roleProject, comment: "Dynamics: the project"},
	"wbsid":             {role: roleTask, comment: "Dynamics: the task's place in the WBS"},
	"taskid":            {role: roleTask, comment: "Dynamics: the task"},
	"taskstatus":        {role: roleStatus, comment: "Dynamics: the task's status"},
	"taskowningcompany": {role: roleOrg, entityType: "company", comment: "Dynamics: the owning company (legal entity)"},
	// Business Central (job tasks).
	"jobno":       {role: roleProject, comment: "Business Central: the job"},
	"jobtaskno":   {role: roleTask, comment: "Business Central: the job task"},
	"jobtasktype": {role: roleRowType, comment: "Business Central: Posting, Heading, Total, Begin-Total, End-Total"},
	"description": {role: roleDescription, comment: "the description"},
	// wbsctl's own names.
	"wbselementcode": {role: roleCode},
	"isactive":       {role: roleStatus},
}

// normalizeName is a column's name as knownColumns holds it.
func normalizeName(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if r == ' ' || r == '-' || r == '_' || r == '.' || r == '/' || unicode.IsSpace(r) {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// SAP's system statuses that say whether an element is active, in the
// order a map lists them: the first a cell holds wins.
var sapStatuses = []activeEntry{
	{"DLFL", false}, {"CLSD", false}, {"TECO", false}, {"REL", true}, {"PREL", true}, {"CRTD", true},
}

// inactiveWords are the words of a status that mean a task is closed.
var inactiveWords = []string{"closed", "completed", "complete", "finished", "cancelled", "canceled", "done", "inactive", "blocked", "locked",
	"abgeschlossen", "gesperrt", "storniert", "erledigt", "n", "no", "false", "0"}

// sample is what a suggestion reads of an export: its header and some of
// the rows below it.
type sample struct {
	line   int
	header []string
	rows   [][]string
}

// maxSampleRows bounds the rows below the header that a suggestion reads
// for the values of its columns.
const maxSampleRows = 2000

// readSample finds the header of t, the row of the first 50 with the
// most names recognised (else the first with the most cells), and reads
// rows below it.
func readSample(t *Table) (*sample, error) {
	var (
		rows  [][]string
		lines []int
	)
	for row := range t.Rows {
		if row.Err != nil || blank(row.Cells) {
			continue
		}
		rows, lines = append(rows, slices.Clone(row.Cells)), append(lines, row.Line)
		if len(rows) >= maxHeaderRow+maxSampleRows {
			break
		}
	}
	if t.Header != nil {
		return &sample{header: t.Header, rows: rows}, nil
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("the export holds no rows")
	}
	header, bestKnown, bestFilled := 0, -1, 0
	for i, cells := range rows[:min(len(rows), maxHeaderRow)] {
		recognised, filled := 0, 0
		for _, c := range cells {
			if _, ok := knownColumns[normalizeName(c)]; ok {
				recognised++
			}
			if strings.TrimSpace(c) != "" {
				filled++
			}
		}
		if recognised > bestKnown || recognised == 0 && bestKnown == 0 && filled > bestFilled {
			header, bestKnown, bestFilled = i, recognised, filled
		}
	}
	return &sample{line: lines[header], header: rows[header], rows: rows[header+1:]}, nil
}

// values are the distinct values of column col in the sample, in the
// order first seen; words splits each cell into words.
func (s *sample) values(col int, words bool) []string {
	var out []string
	for _, row := range s.rows {
		if col >= len(row) {
			continue
		}
		parts := []string{strings.TrimSpace(row[col])}
		if words {
			parts = strings.Fields(row[col])
		}
		for _, p := range parts {
			if p != "" && !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// zeroPadded reports whether a value of column col is digits with a
// leading zero, as SAP writes a number with ALPHA conversion.
func (s *sample) zeroPadded(col int) bool {
	for _, v := range s.values(col, false) {
		if len(v) > 1 && v[0] == '0' && alpha(v) != v {
			return true
		}
	}
	return false
}

// Suggest writes a starting map for the export t, whose file is source:
// the columns it recognises mapped, a commented placeholder for what it
// cannot tell, and the columns it does not know listed at the end.
func Suggest(t *Table, source string) ([]byte, error) {
	s, err := readSample(t)
	if err != nil {
		return nil, err
	}
	var (
		b        strings.Builder
		code     = -1
		task     = -1
		project  = -1
		desc     = -1
		status   = -1
		rowType  = -1
		orgs     []int
		unknown  []string
		orgTypes []string
		// texts are the columns of the text fields but the description
		// (desc), by field; -1 where none was recognised.
		texts = make([]int, len(wbsfile.TextFields))
	)
	for f := range texts {
		texts[f] = -1
	}
	for i, name := range s.header {
		if strings.TrimSpace(name) == "" {
			continue
		}
		k, ok := knownColumns[normalizeName(name)]
		first := func(at *int) {
			if *at < 0 {
				*at = i
			} else {
				unknown = append(unknown, name)
			}
		}
		switch f := textColumn(name); {
		case !ok && f >= 0:
			first(&texts[f])
		case !ok:
			unknown = append(unknown, name)
		case k.role == roleCode:
			first(&code)
		case k.role == roleTask:
			first(&task)
		case k.role == roleProject:
			first(&project)
		case k.role == roleDescription:
			if desc >= 0 && descriptionRank(name) < descriptionRank(s.header[desc]) {
				desc, name = i, s.header[desc]
			}
			first(&desc)
		case k.role == roleStatus:
			first(&status)
		case k.role == roleRowType:
			first(&rowType)
		case k.role == roleOrg && !slices.Contains(orgTypes, k.entityType):
			orgs, orgTypes = append(orgs, i), append(orgTypes, k.entityType)
		default:
			unknown = append(unknown, name)
		}
	}
	place := fmt.Sprintf("line %d", s.line)
	if t.Cell != nil {
		place = t.Cell(s.line, -1)
	}
	if t.Header != nil {
		place = "its objects' members"
	}
	fmt.Fprintf(&b, "# A starting map for %s, written by wbsctl map init from its header\n", source)
	fmt.Fprintf(&b, "# (%s). Check each line, then look at what it gives:\n", place)
	fmt.Fprintf(&b, "#   wbsctl map check -f %s --map THIS-FILE\n", shellWord(source))
	b.WriteString("version: 1\n")
	codeText := ""
	switch {
	case code >= 0:
		codeText = yamlScalar(s.header[code])
		if task >= 0 {
			unknown = append(unknown, s.header[task])
		}
		if project >= 0 {
			unknown = append(unknown, s.header[project])
		}
	case task >= 0 && project >= 0:
		// A task's number is unique within its project only.
		codeText = "{expr: " + yamlSingle(fmt.Sprintf(`concat(%s, "-", %s)`, exprName(s.header[project]), exprName(s.header[task]))) + "}"
	case task >= 0:
		codeText = yamlScalar(s.header[task])
	case project >= 0:
		unknown = append(unknown, s.header[project])
	}
	var find []string
	for _, col := range []int{code, task, desc} {
		if col >= 0 && (col != task || code < 0) {
			find = append(find, yamlScalar(s.header[col]))
		}
	}
	if t.Header == nil {
		if len(find) > 0 {
			fmt.Fprintf(&b, "header: {find: [%s]}   # the first row holding these names; or {row: %d}\n", strings.Join(find, ", "), s.line)
		} else {
			fmt.Fprintf(&b, "header: {row: %d}\n", s.line)
		}
	}
	switch {
	case rowType >= 0:
		types := s.values(rowType, false)
		v := "Posting"
		if len(types) > 0 && !slices.Contains(types, v) {
			v = types[0]
		}
		fmt.Fprintf(&b, "# where: %s   # the rows to keep (%s: %s); the others are counted, not read\n",
			yamlSingle(fmt.Sprintf("%s == %s", exprName(s.header[rowType]), exprText(v))), s.header[rowType], strings.Join(types, ", "))
	case len(orgs) > 0:
		values := s.values(orgs[0], false)
		v := "…"
		if len(values) > 0 {
			v = values[0]
		}
		fmt.Fprintf(&b, "# where: %s   # the rows to keep; the others are counted, not read\n",
			yamlSingle(fmt.Sprintf("%s == %s", exprName(s.header[orgs[0]]), exprText(v))))
	default:
		b.WriteString("# where: 'Column == \"value\"'   # the rows to keep; the others are counted, not read\n")
	}
	if codeText != "" {
		writeLine(&b, "wbsElementCode: "+codeText, commentOf(s.header, max(code, task)))
	} else {
		b.WriteString("# wbsElementCode: COLUMN   # no column was recognised as the element's code: name it, then remove the #\n")
	}
	if desc >= 0 {
		writeLine(&b, "description: "+yamlScalar(s.header[desc]), commentOf(s.header, desc))
	} else {
		b.WriteString("# description: COLUMN   # no column was recognised as the description; left out, apply keeps each element's\n")
	}
	for f, col := range texts {
		if field := wbsfile.TextFields[f]; field.Name == descriptionField {
			continue
		} else if col >= 0 {
			writeLine(&b, field.Name+": "+yamlScalar(s.header[col]), "")
		} else {
			fmt.Fprintf(&b, "# %s: COLUMN   # no column was recognised as %s; left out, apply keeps each element's\n", field.Name, field.Usage)
		}
	}
	if status >= 0 {
		writeActive(&b, s, status)
	} else {
		b.WriteString("# isActive: {column: COLUMN, map: {STATUS: false, OTHER: true}, else: error}   # no status column was recognised; left out, apply keeps each element's flag\n")
	}
	if len(orgs) > 0 {
		b.WriteString("organizations:   # an entity type and its column; an empty cell: no link of that type\n")
		for _, col := range orgs {
			k := knownColumns[normalizeName(s.header[col])]
			rule := yamlScalar(s.header[col])
			comment := k.comment
			if s.zeroPadded(col) {
				rule = "{column: " + yamlScalar(s.header[col]) + ", alpha: true}"
				comment = strings.TrimPrefix(comment+"; digits without leading zeros, 0000004711 is 4711", "; ")
			}
			writeLine(&b, "  "+k.entityType+": "+rule, comment)
		}
		b.WriteString("  # branch: {value: B3}   # the same for every row\n")
	} else {
		b.WriteString("# organizations:   # no organization column was recognised: an entity type and its column, such as\n")
		b.WriteString("#   company: COLUMN\n")
	}
	if len(unknown) > 0 {
		b.WriteString("# Columns not recognised: map them above, or leave them out.\n")
		for _, name := range unknown {
			fmt.Fprintf(&b, "#   %s\n", strings.ReplaceAll(name, "\n", " "))
		}
	}
	return []byte(b.String()), nil
}

// descriptionField is the text field that knownColumns recognises under
// the ERPs' names (roleDescription).
const descriptionField = "description"

// textColumn returns the index in wbsfile.TextFields of the text field,
// other than the description, whose column name is by its name or its
// heading; -1 for none.
func textColumn(name string) int {
	n := normalizeName(name)
	return slices.IndexFunc(wbsfile.TextFields, func(f wbsfile.TextField) bool {
		return f.Name != descriptionField && (n == normalizeName(f.Name) || n == normalizeName(f.Heading))
	})
}

// descriptionRank orders the names of a description: SAP's and a task's
// name before a long description (Oracle's DESCRIPTION holds 250
// characters, the platform 100).
func descriptionRank(name string) int {
	if normalizeName(name) == "description" {
		return 1
	}
	return 0
}

// writeActive writes the isActive rule of the status column col.
func writeActive(b *strings.Builder, s *sample, col int) {
	name := s.header[col]
	norm := normalizeName(name)
	if norm == "isactive" {
		writeLine(b, "isActive: "+yamlScalar(name), "")
		return
	}
	k := knownColumns[norm]
	writeLine(b, "isActive:", k.comment)
	b.WriteString("  column: " + yamlScalar(name) + "\n")
	var entries []activeEntry
	var others []string
	words := norm == "systemstatus" || norm == "sttxt"
	if words {
		b.WriteString("  words: true   # the cell holds several statuses\n")
		entries = sapStatuses
		for _, v := range s.values(col, true) {
			if !slices.ContainsFunc(entries, func(e activeEntry) bool { return e.key == v }) {
				others = append(others, v)
			}
		}
	} else {
		for _, v := range s.values(col, false) {
			if len(entries) >= 30 {
				break
			}
			entries = append(entries, activeEntry{key: v, value: !slices.Contains(inactiveWords, strings.ToLower(v))})
		}
		// Those that close a task first: with words, the first wins.
		slices.SortStableFunc(entries, func(a, b activeEntry) int {
			switch {
			case a.value == b.value:
				return 0
			case !a.value:
				return -1
			}
			return 1
		})
	}
	if len(entries) == 0 {
		b.WriteString("  map: {STATUS: false, OTHER: true}   # no value was found below the header: map each status\n")
	} else {
		parts := make([]string, len(entries))
		for i, e := range entries {
			parts[i] = yamlScalar(e.key) + ": " + strconv.FormatBool(e.value)
		}
		comment := "the first listed that the cell holds wins"
		if !words {
			comment = "the values found in the export: check each"
		}
		writeLine(b, "  map: {"+strings.Join(parts, ", ")+"}", comment)
	}
	if len(others) > 0 {
		fmt.Fprintf(b, "  # also in the column: %s (they say nothing of active; add those that do)\n", strings.Join(others, ", "))
	}
	b.WriteString("  else: error   # a cell no entry matches is a problem; or true / false\n")
}

func commentOf(header []string, col int) string {
	if col < 0 {
		return ""
	}
	return knownColumns[normalizeName(header[col])].comment
}

func writeLine(b *strings.Builder, line, comment string) {
	b.WriteString(line)
	if comment != "" {
		b.WriteString("   # " + comment)
	}
	b.WriteByte('\n')
}

// yamlScalar is s as a YAML scalar, in a block or inside [ ] and { }:
// plain where YAML reads it back as the same text, else in double quotes.
func yamlScalar(s string) string {
	if plainSafe(s) {
		return s
	}
	return strconv.Quote(s)
}

// yamlSingle is s, an expression, in YAML's single quotes.
func yamlSingle(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// plainSafe reports whether s is read back from a plain scalar as the
// same text: letters, digits and a few marks, not starting with one of
// YAML's indicators, and no word YAML reads as another type.
func plainSafe(s string) bool {
	if s == "" || strings.TrimSpace(s) != s {
		return false
	}
	switch strings.ToLower(s) {
	case "true", "false", "yes", "no", "on", "off", "null", "~", "y", "n":
		return false
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return false
	}
	for i, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
		case r == ' ' || r == '-' || r == '_' || r == '.' || r == '/' || r == '(' || r == ')' || r == '+':
			if i == 0 && r != '(' {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// exprName is a column's name in an expression: as it is where an
// identifier can spell it and it is no word of expr-lang's, else as
// $env["…"].
func exprName(name string) string {
	plain := name != ""
	for i, r := range name {
		plain = plain && (r == '_' || unicode.IsLetter(r) || i > 0 && unicode.IsDigit(r))
	}
	if plain && !slices.Contains(exprWords, name) && !slices.ContainsFunc(functions, func(f function) bool { return f.name == name }) {
		if _, builtin := conf.CreateNew().Builtins[name]; !builtin {
			return name
		}
	}
	return "$env[" + exprText(name) + "]"
}

// exprWords are the words expr-lang reads as its own, not as a name.
var exprWords = []string{"and", "or", "not", "in", "matches", "contains", "startsWith", "endsWith", "let", "if", "else", "true", "false", "nil"}

// exprText is s as a text literal of an expression.
func exprText(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`).Replace(s) + `"`
}

// shellWord is s as a shell word.
func shellWord(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("-_./", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
