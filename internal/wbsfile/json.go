package wbsfile

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/wbsctl/wbsctl/internal/links"
	"github.com/wbsctl/wbsctl/internal/strictjson"
	"github.com/wbsctl/wbsctl/sdk"
)

// jsonRecord is a record of JSON, NDJSON and YAML files.
type jsonRecord struct {
	Code          *string `json:"wbsElementCode" yaml:"wbsElementCode"`
	Texts         `json:",inline" yaml:",inline"`
	IsActive      *bool               `json:"isActive" yaml:"isActive"`
	Organizations *[]fileOrganization `json:"businessOrganizations" yaml:"businessOrganizations"`
}

// fileOrganization is an organization in JSON, NDJSON and YAML files.
type fileOrganization struct {
	Code       string `json:"code" yaml:"code"`
	EntityType string `json:"entityType" yaml:"entityType"`
}

func (j jsonRecord) record(line int) Record {
	r := Record{Line: int32(line), Texts: j.Texts, IsActive: j.IsActive}
	if j.Code != nil {
		r.Code = *j.Code
	}
	if j.Organizations != nil {
		r.Organizations, r.OrganizationsSet = make([]sdk.BusinessOrganization, len(*j.Organizations)), true
		for i, o := range *j.Organizations {
			r.Organizations[i] = sdk.BusinessOrganization(o)
		}
	}
	return r
}

func (p *parser) decodeJSON(raw []byte, line int) (Record, bool) {
	r, pr, ok := decodeJSONRecord(raw, line)
	if !ok {
		p.problem(pr)
	}
	return r, ok
}

// decodeJSONRecord decodes raw, the record on line line, by the strict
// rules, or returns its problem.
func decodeJSONRecord(raw []byte, line int) (Record, Problem, bool) {
	var j jsonRecord
	if err := strictjson.Unmarshal(raw, &j); err != nil {
		code := jsonCode(raw)
		var e *strictjson.Error
		switch {
		case !errors.As(err, &e):
			return Record{}, Problem{Line: line, Code: code, Message: err.Error()}, false
		case e.Kind == strictjson.DataAfter:
			return Record{}, Problem{Line: line, Message: "data after the record: a line holds one record"}, false
		default:
			return Record{}, Problem{Line: line, Code: code, Field: e.Path, Message: e.Message}, false
		}
	}
	if j.Code == nil {
		return Record{}, Problem{Line: line, Field: "wbsElementCode", Message: "is required"}, false
	}
	return j.record(line), Problem{}, true
}

// jsonCode is the code of a record the strict rules refused, as any
// reading of it would find it: the string of its one member named
// wbsElementCode in any case. It is "" where readings could differ: a
// record that is no object or not valid JSON, a code that is no string,
// two members that could each be the code.
func jsonCode(raw []byte) string {
	dec := jsontext.NewDecoder(bytes.NewReader(raw), jsontext.AllowDuplicateNames(true))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return ""
	}
	code, found := "", 0
	for dec.PeekKind() == '"' {
		tok, err := dec.ReadToken()
		if err != nil {
			return ""
		}
		name := tok.String() // before the decoder reads on
		value, err := dec.ReadValue()
		if err != nil {
			return ""
		}
		if !strings.EqualFold(name, "wbsElementCode") {
			continue
		}
		if found++; value.Kind() != '"' {
			return ""
		}
		if err := json.Unmarshal(value, &code); err != nil {
			return ""
		}
	}
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '}' || found != 1 {
		return ""
	}
	return code
}

// ndjson reads a record a line: each by the scanner of jsonArrayFast where
// it reads the line whole, else by the strict rules (decodeJSON).
func (p *parser) ndjson(data []byte) []Record {
	var recs recordBlocks
	var s jsonScanner
	for line := 1; len(data) > 0; line++ {
		var raw []byte
		raw, data, _ = bytes.Cut(data, []byte("\n"))
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 {
			continue
		}
		s.data, s.i = raw, 0
		if r, ok := s.record(line); ok && s.i == len(raw) {
			recs.add(r)
		} else if r, ok := p.decodeJSON(raw, line); ok {
			recs.add(r)
		}
	}
	return recs.records()
}

// ndjsonStrict is ndjson by the strict rules alone.
func (p *parser) ndjsonStrict(data []byte) []Record {
	var recs []Record
	for line := 1; len(data) > 0; line++ {
		var raw []byte
		raw, data, _ = bytes.Cut(data, []byte("\n"))
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 {
			continue
		}
		if r, ok := p.decodeJSON(raw, line); ok {
			recs = append(recs, r)
		}
	}
	return recs
}

// jsonArray reads an array of records a record at a time: a record with a
// problem is reported by its line, and the others are read all the same.
func (p *parser) jsonArray(data []byte) []Record {
	if recs, problems, ok := jsonArrayFast(data); ok {
		for _, pr := range problems {
			p.problem(pr)
		}
		return recs
	}
	return p.jsonArrayStrict(data)
}

// jsonArrayStrict is jsonArray by the strict rules alone: the array read
// by jsontext and each record decoded by strictjson. It reads every file
// that jsonArrayFast declines.
func (p *parser) jsonArrayStrict(data []byte) []Record {
	// lineAt counts lines from where it counted last: offsets only grow.
	line, counted := 1, 0
	lineAt := func(off int64) int {
		to := min(int(off), len(data))
		line += bytes.Count(data[counted:to], []byte("\n"))
		counted = to
		return line
	}
	// Each record is decoded by the strict rules on its own; the array
	// only finds where each begins and ends.
	dec := jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowDuplicateNames(true))
	tok, err := dec.ReadToken()
	wrapped := err == nil && tok.Kind() == '{'
	seen := map[string]bool{}
	if wrapped {
		if !p.wrapperMembers(dec, seen, lineAt) {
			return nil
		}
		tok, err = dec.ReadToken()
	}
	switch {
	case wrapped && (err != nil || tok.Kind() != '['):
		p.problem(Problem{Line: lineAt(dec.InputOffset()), Field: wrapperMember, Message: "must be an array of records"})
		return nil
	case err != nil || tok.Kind() != '[':
		p.problem(Problem{Line: 1, Message: "a JSON file must hold an array of records, or an object of $schema and " + wrapperMember})
		return nil
	}
	var recs []Record
	for dec.PeekKind() != ']' {
		start := dec.InputOffset()
		raw, err := dec.ReadValue()
		if err != nil {
			p.problem(Problem{Line: lineAt(start), Message: "invalid JSON: " + syntaxMessage(err)})
			return recs
		}
		line := lineAt(dec.InputOffset() - int64(len(raw)))
		if r, ok := p.decodeJSON(raw, line); ok {
			recs = append(recs, r)
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		p.problem(Problem{Line: lineAt(dec.InputOffset()), Message: "the array is not closed"})
		return recs
	}
	if wrapped && !p.wrapperMembers(dec, seen, lineAt) {
		return recs
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		p.problem(Problem{Line: lineAt(dec.InputOffset()), Message: "data after the array"})
	}
	return recs
}

// wrapperMember is the member of the object form of a JSON or YAML file
// that holds its records: {"$schema": "…", "wbsElements": […]}. The form
// exists so that a file can name its schema for an editor; $schema is
// read and left alone.
const wrapperMember = "wbsElements"

// wrapperMembers reads the members of the object form up to the start of
// wbsElements's array, or after it up to the object's end: it reports
// a member other than $schema and wbsElements, or one given twice, and
// returns false then.
func (p *parser) wrapperMembers(dec *jsontext.Decoder, seen map[string]bool, lineAt func(int64) int) bool {
	for dec.PeekKind() == '"' {
		tok, err := dec.ReadToken()
		if err != nil {
			break
		}
		// A name ends on the line it starts on.
		at := dec.InputOffset()
		name := tok.String()
		if seen[name] {
			p.problem(Problem{Line: lineAt(at), Field: name, Message: "given more than once"})
			return false
		}
		seen[name] = true
		switch name {
		case wrapperMember:
			return true
		case "$schema":
			if dec.PeekKind() != '"' {
				p.problem(Problem{Line: lineAt(at), Field: name, Message: "must be a string, the schema's address"})
				return false
			}
			if _, err := dec.ReadValue(); err != nil {
				break
			}
		default:
			p.problem(Problem{Line: lineAt(at), Field: name, Message: "unknown member (known: $schema, " + wrapperMember + ")"})
			return false
		}
	}
	tok, err := dec.ReadToken()
	switch {
	case err != nil:
		p.problem(Problem{Line: lineAt(dec.InputOffset()), Message: "invalid JSON: " + syntaxMessage(err)})
		return false
	case tok.Kind() != '}':
		p.problem(Problem{Line: lineAt(dec.InputOffset()), Message: "invalid JSON: unexpected " + tok.String()})
		return false
	case !seen[wrapperMember]:
		p.problem(Problem{Line: lineAt(dec.InputOffset()), Field: wrapperMember, Message: "is required: the array of records"})
		return false
	}
	return true
}

// syntaxMessage is a syntax error of the JSON reader without its
// package's name.
func syntaxMessage(err error) string {
	var syn *jsontext.SyntacticError
	if errors.As(err, &syn) {
		return syn.Err.Error()
	}
	return err.Error()
}

// jsonArrayFast reads a file that is an array of records, the form export
// writes, by a scanner of its own: jsontext and strictjson, which check
// every rule of any JSON text for any Go type, took 2.5 to 3.5 times CSV's
// time for 20,000 records with links, the scanner about CSV's
// (BenchmarkParseFormats, side by side). The scanner reads a record
// itself only where the strict rules read it the same: an object of the
// four members, each at most once; its strings without escapes;
// description a string or null; isActive true, false or null;
// businessOrganizations an array of objects of code and entityType, both
// strings. It hands any other record, which the scanner leaves where it
// began, to jsontext, which finds its end, and to decodeJSONRecord, whose
// problem it returns for the caller to report. It declines (ok false),
// having reported nothing, a file that is not a plain array (the object
// form), that jsontext would not read to its end (a syntax error, data
// after the array) or that has more than maxProblems problems:
// jsonArrayStrict reads it and reports its problems.
// data is UTF-8 (text has checked it), so that a string needs no other
// check. TestFastReadersAgree holds the records and problems to
// jsonArrayStrict's.
func jsonArrayFast(data []byte) (_ []Record, problems []Problem, ok bool) {
	s := jsonScanner{data: data}
	var recs recordBlocks
	s.space()
	if !s.take('[') {
		return nil, nil, false
	}
	s.space()
	// line counts lines from where it counted last: offsets only grow.
	line, counted := 1, 0
	// One decoder, reset for each record the scanner declines, finds
	// where that record ends: made anew for each, the decoders had a
	// file whose every record the scanner declines allocate 2.7 times
	// what jsonArrayStrict does (37 MB against 14 for 20,000 records).
	var rest bytes.Reader
	dec := jsontext.NewDecoder(&rest)
	for !s.take(']') {
		start := s.i
		line += bytes.Count(data[counted:start], []byte("\n"))
		counted = start
		rec, ok := s.record(line)
		if !ok {
			// data[start] is no space: the value starts there.
			rest.Reset(data[start:])
			dec.Reset(&rest, jsontext.AllowDuplicateNames(true))
			raw, err := dec.ReadValue()
			if err != nil {
				return nil, nil, false
			}
			s.i = start + len(raw)
			var pr Problem
			if rec, pr, ok = decodeJSONRecord(raw, line); !ok {
				if len(problems) == maxProblems {
					return nil, nil, false // more than a file reports: the strict reader holds none
				}
				problems = append(problems, pr)
			}
		}
		if ok {
			recs.add(rec)
		}
		s.space()
		if !s.take(',') {
			if s.peek() != ']' {
				return nil, nil, false
			}
			continue
		}
		s.space()
		if s.peek() == ']' {
			return nil, nil, false // a comma before the end
		}
	}
	s.space()
	if s.i != len(data) {
		return nil, nil, false
	}
	return recs.records(), problems, true
}

// jsonScanner reads the JSON of jsonArrayFast.
type jsonScanner struct {
	data []byte
	i    int // the offset of the next byte to read
	orgs orgLists
}

// peek is the next byte, or 0 at the end.
func (s *jsonScanner) peek() byte {
	if s.i < len(s.data) {
		return s.data[s.i]
	}
	return 0
}

// take reads c if it is the next byte.
func (s *jsonScanner) take(c byte) bool {
	if s.i < len(s.data) && s.data[s.i] == c {
		s.i++
		return true
	}
	return false
}

// space reads the white space of JSON.
func (s *jsonScanner) space() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\n', '\r', '\t':
			s.i++
		default:
			return
		}
	}
}

// literal reads word (true, false, null) if it comes next; the byte after
// it is left to the caller, which takes only a space or a delimiter.
func (s *jsonScanner) literal(word string) bool {
	if bytes.HasPrefix(s.data[s.i:], []byte(word)) {
		s.i += len(word)
		return true
	}
	return false
}

// str reads a string without escapes or control characters, and returns
// its text; false for any other value.
func (s *jsonScanner) str() ([]byte, bool) {
	if s.peek() != '"' {
		return nil, false
	}
	for j := s.i + 1; j < len(s.data); j++ {
		switch c := s.data[j]; {
		case c == '"':
			text := s.data[s.i+1 : j]
			s.i = j + 1
			return text, true
		case c == '\\' || c < 0x20:
			return nil, false
		}
	}
	return nil, false
}

// member reads a member's name and the colon after it, and returns the
// name.
func (s *jsonScanner) member() ([]byte, bool) {
	name, ok := s.str()
	if !ok {
		return nil, false
	}
	s.space()
	if !s.take(':') {
		return nil, false
	}
	s.space()
	return name, true
}

// next reads the space and the comma after a member, true, or the space
// and the end of its object, false; ok false for anything else.
func (s *jsonScanner) next(end byte) (more, ok bool) {
	s.space()
	switch {
	case s.take(','):
		s.space()
		return true, true
	case s.take(end):
		return false, true
	}
	return false, false
}

// record reads a record on line line as the strict rules would, or
// reports false where it cannot tell that they would (see jsonArrayFast).
func (s *jsonScanner) record(line int) (Record, bool) {
	if !s.take('{') {
		return Record{}, false
	}
	r := Record{Line: int32(line)}
	var seen uint32 // a bit for each member read
	s.space()
	for more := true; more; {
		name, ok := s.member()
		if !ok {
			return Record{}, false
		}
		var bit uint32
		switch string(name) {
		case "wbsElementCode":
			bit = 1
			code, ok := s.str()
			if !ok {
				return Record{}, false // null or no string: a problem
			}
			r.Code = string(code)
		case "isActive":
			bit = 1 << 1
			switch {
			case s.literal("true"):
				r.IsActive = new(true)
			case s.literal("false"):
				r.IsActive = new(false)
			case !s.literal("null"):
				return Record{}, false
			}
		case "businessOrganizations":
			bit = 1 << 2
			if r.Organizations, ok = s.organizations(); !ok {
				return Record{}, false
			}
			r.OrganizationsSet = true
		default:
			f := textFieldIndex(string(name))
			if f < 0 {
				return Record{}, false
			}
			bit = 1 << (3 + f)
			if !s.literal("null") {
				text, ok := s.str()
				if !ok {
					return Record{}, false
				}
				d := string(text)
				*TextFields[f].Of(&r.Texts) = &d
			}
		}
		if seen&bit != 0 {
			return Record{}, false
		}
		seen |= bit
		if more, ok = s.next('}'); !ok {
			return Record{}, false
		}
	}
	return r, seen&1 != 0
}

// organizations reads an array of organizations, each of both members.
func (s *jsonScanner) organizations() ([]sdk.BusinessOrganization, bool) {
	if !s.take('[') {
		return nil, false
	}
	orgs := &s.orgs
	orgs.start()
	s.space()
	if s.take(']') {
		return orgs.list(), true
	}
	for more := true; more; {
		if !s.take('{') {
			return nil, false
		}
		s.space()
		var m orgMembers
		for inner := true; inner; {
			name, ok := s.member()
			if !ok {
				return nil, false
			}
			text, ok := s.str()
			if !ok || !m.set(name, text) {
				return nil, false
			}
			if inner, ok = s.next('}'); !ok {
				return nil, false
			}
		}
		if !m.whole() {
			return nil, false
		}
		orgs.add(m.code, m.entityType)
		var ok bool
		if more, ok = s.next(']'); !ok {
			return nil, false
		}
	}
	return orgs.list(), true
}

// recordBlocks collects the records of the fast readers in blocks of a
// thousand, and makes one slice of their number at the end. Appended to one
// slice, which grows by a quarter once large, 20,000 records had the
// allocator make and copy five times their size: 10 to 12 % more CPU time
// for either reader (BenchmarkParseFormats, measured beside it).
type recordBlocks [][]Record

func (b *recordBlocks) add(r Record) {
	if n := len(*b); n == 0 || len((*b)[n-1]) == cap((*b)[n-1]) {
		*b = append(*b, make([]Record, 0, 1024))
	}
	last := &(*b)[len(*b)-1]
	*last = append(*last, r)
}

// records are the records added, nil for none.
func (b recordBlocks) records() []Record { return slices.Concat(b...) }

// orgLists makes the lists of organizations of the fast readers as
// links.Share holds them. A file's records draw their links from a few
// lists: each is made once, the first time it is read, and found by its
// codes and entity types the other times, so that a list read again costs
// no strings and no slice that links.Share would drop at once. Made for
// each record, they took a fifth of either reader's CPU time
// (BenchmarkParseFormats, measured beside it).
type orgLists struct {
	made map[string][]sdk.BusinessOrganization
	// The list being read, its strings still the file's bytes, and
	// the key of made that list builds.
	read [][2][]byte
	key  []byte
}

// maxOrgLists bounds the lists an orgLists finds; a file of more distinct
// lists has the others made each time.
const maxOrgLists = 1 << 12

// start starts a list.
func (o *orgLists) start() { o.read = o.read[:0] }

// add adds an organization to the list, its code and entity type as read
// (the bytes are not kept).
func (o *orgLists) add(code, entityType []byte) {
	o.read = append(o.read, [2][]byte{code, entityType})
}

// list is the list read since start, as links.Share holds it.
func (o *orgLists) list() []sdk.BusinessOrganization {
	key := o.key[:0]
	for _, org := range o.read {
		key = binary.AppendUvarint(key, uint64(len(org[0])))
		key = append(key, org[0]...)
		key = binary.AppendUvarint(key, uint64(len(org[1])))
		key = append(key, org[1]...)
	}
	o.key = key
	if list, ok := o.made[string(key)]; ok {
		return list
	}
	list := make([]sdk.BusinessOrganization, len(o.read)) // stated, even empty: not nil
	for i, org := range o.read {
		list[i] = sdk.BusinessOrganization{Code: string(org[0]), EntityType: string(org[1])}
	}
	list = links.Share(list)
	if o.made == nil {
		o.made = map[string][]sdk.BusinessOrganization{}
	}
	if len(o.made) < maxOrgLists {
		o.made[string(key)] = list
	}
	return list
}

// orgMembers gathers the members of a business organization as the fast
// readers of JSON and YAML meet them: code and entityType, each once,
// and no other.
type orgMembers struct {
	code, entityType []byte
	seen             uint8
}

// set takes the text of member name, or reports that name is not one of
// the two or was given before.
func (m *orgMembers) set(name, text []byte) bool {
	var bit uint8
	var to *[]byte
	switch string(name) {
	case "code":
		bit, to = 1, &m.code
	case "entityType":
		bit, to = 2, &m.entityType
	default:
		return false
	}
	if m.seen&bit != 0 {
		return false
	}
	m.seen |= bit
	*to = text
	return true
}

// whole reports whether both members were given.
func (m *orgMembers) whole() bool { return m.seen == 3 }
