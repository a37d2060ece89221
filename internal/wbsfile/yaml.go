package wbsfile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"

	"unicode/utf8"

	"github.com/wbsctl/wbsctl/sdk"
	"golang.org/x/sync/errgroup"
	"gopkg.in/yaml.v3"
)

func (p *parser) yaml(data []byte) []Record {
	if recs, ok := yamlFast(data); ok {
		return recs
	}
	return p.yamlStrict(data)
}

// yamlStrict is yaml by yaml.v3 alone: every file that yamlFast declines.
func (p *parser) yamlStrict(data []byte) []Record {
	if recs, ok := p.yamlInPieces(data, yamlPieceBytes); ok {
		return recs
	}
	return p.yamlDocument(data, 0)
}

// yamlDocument reads data, a whole YAML file or the piece of one after
// its first before lines.
func (p *parser) yamlDocument(data []byte, before int) []Record {
	seq := p.yamlRoot(data, before)
	if seq == nil {
		return nil
	}
	return p.yamlRecords(seq, before)
}

// yamlRoot reads data with yaml.v3 and returns its sequence of records, or
// nil after reporting what is wrong with it.
func (p *parser) yamlRoot(data []byte, before int) *yaml.Node {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		p.problem(Problem{Line: 1, Message: "invalid YAML: " + err.Error()})
		return nil
	}
	// A second document would be ignored, and its records pruned.
	var next yaml.Node
	if err := dec.Decode(&next); !errors.Is(err, io.EOF) {
		line := next.Line
		if err != nil || line == 0 {
			line = 1
		}
		p.problem(Problem{Line: line + before, Message: "a second YAML document: a file holds one sequence of records"})
		return nil
	}
	if len(doc.Content) == 0 {
		return nil
	}
	seq := doc.Content[0]
	if seq.Kind == yaml.MappingNode {
		if seq = p.yamlWrapper(seq); seq == nil {
			return nil
		}
	}
	if seq.Kind != yaml.SequenceNode {
		p.problem(Problem{Line: seq.Line + before, Message: "a YAML file must hold a sequence of records, or a mapping of $schema and " + wrapperMember})
		return nil
	}
	return seq
}

// yamlRecords reads the records of seq, a sequence node of a file's piece
// after its first before lines.
func (p *parser) yamlRecords(seq *yaml.Node, before int) []Record {
	var recs []Record
	for _, n := range seq.Content {
		if n.Kind != yaml.MappingNode {
			p.problem(Problem{Line: n.Line + before, Message: "a record must be a mapping"})
			continue
		}
		ok, dup := true, false
		code := yamlCode(n)
		seen := map[string]bool{}
		for i := 0; i < len(n.Content); i += 2 {
			k := n.Content[i].Value
			switch {
			case seen[k]:
				p.problem(Problem{Line: n.Content[i].Line + before, Code: code, Field: k, Message: "given more than once"})
				ok, dup = false, true
			case k == "isActive" && textScalar(n.Content[i+1]):
				// yaml.v3 decodes "yes", 'off' and a plain yes into a
				// bool, as YAML 1.1 did; YAML 1.2, the schema and an
				// editor read them as text.
				p.problem(Problem{Line: n.Content[i+1].Line + before, Code: code, Field: k,
					Message: fmt.Sprintf("%q is text, not a boolean: write true, false or null", scalarValue(n.Content[i+1]))})
				ok, dup = false, true
			case slices.Contains(jsonMembers, k):
			default:
				p.problem(Problem{Line: n.Content[i].Line + before, Code: code, Field: k, Message: "unknown member (known: " + strings.Join(jsonMembers, ", ") + ")"})
				ok = false
			}
			seen[k] = true
		}
		if dup {
			continue // decoding would only repeat it, or read a text as a bool
		}
		var j jsonRecord
		if err := n.Decode(&j); err != nil {
			p.problem(Problem{Line: n.Line + before, Code: code, Message: "wrong type: " + strings.TrimPrefix(err.Error(), "yaml: unmarshal errors:\n  ")})
			continue
		}
		if j.Code == nil {
			p.problem(Problem{Line: n.Line + before, Field: "wbsElementCode", Message: "is required"})
			continue
		}
		if ok {
			recs = append(recs, j.record(n.Line+before))
		}
	}
	return recs
}

// yamlPieceBytes is the least size of a piece of a YAML file read apart
// from the rest (see yamlInPieces).
const yamlPieceBytes = 256 << 10

// yamlInPieces reads a file whose root is a block sequence in pieces of at
// least size bytes, cut before lines that start an item of it, up to
// GOMAXPROCS pieces at a time. yaml.v3 holds a node of some 200 bytes for
// each scalar, key and collection of the document it reads, so that a large
// file read whole takes many times its size: an apply of 200,000 records
// with links peaked at 1,012 MiB with the file read whole, at about 210
// with it read in pieces (measured when this was built, before yamlFast).
// It reports false, having read nothing into p, where the file is not one
// that cutting leaves the same (see yamlPieces) and where any piece has a
// problem, whose message the whole file's reading then gives with the
// file's own lines. FuzzYAMLPieces holds the records to the whole file's.
func (p *parser) yamlInPieces(data []byte, size int) ([]Record, bool) {
	pieces := yamlPieces(data, size)
	if len(pieces) < 2 {
		return nil, false
	}
	read := make([][]Record, len(pieces))
	g, ctx := errgroup.WithContext(context.Background())
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, piece := range pieces {
		g.Go(func() error {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			q := &parser{file: &File{}, opts: p.opts}
			read[i] = q.yamlDocument(piece.data, piece.before)
			if len(q.file.Problems) > 0 {
				return errProblem
			}
			return nil
		})
	}
	if g.Wait() != nil {
		return nil, false
	}
	return slices.Concat(read...), true
}

var errProblem = errors.New("a piece of the file has a problem")

// A yamlPiece is a part of a YAML file after its first before lines.
type yamlPiece struct {
	data   []byte
	before int
}

// yamlPieces cuts data into pieces of at least size bytes, each but the
// first starting with a line "- " at the first column, or returns nil if
// such a line might not start an item of the root sequence. That is so in
// a file whose first line other than a blank or comment starts with "- ",
// and which has no line beginning with a directive or a document marker
// (%, --- or ...) and no line break but \n and \r\n: there, a line at the
// first column ends any scalar or block collection nested in an item, and
// a cut inside a quoted scalar or a flow collection leaves the piece before
// it unterminated, so that it fails to read.
func yamlPieces(data []byte, size int) []yamlPiece {
	if bytes.Count(data, []byte("\r")) != bytes.Count(data, []byte("\r\n")) ||
		bytes.ContainsAny(data, "\u0085\u2028\u2029") {
		return nil
	}
	for _, marker := range []string{"%", "---", "..."} {
		if bytes.HasPrefix(data, []byte(marker)) || bytes.Contains(data, []byte("\n"+marker)) {
			return nil
		}
	}
	for rest := data; ; {
		line, after, _ := bytes.Cut(rest, []byte("\n"))
		if content := bytes.TrimLeft(line, " \t\r"); len(content) > 0 && content[0] != '#' {
			if !bytes.HasPrefix(line, []byte("- ")) {
				return nil
			}
			break
		}
		if len(after) == 0 {
			return nil
		}
		rest = after
	}
	var pieces []yamlPiece
	before := 0
	for len(data) > size {
		at := bytes.Index(data[size:], []byte("\n- "))
		if at < 0 {
			break
		}
		end := size + at + 1
		pieces = append(pieces, yamlPiece{data: data[:end], before: before})
		before += bytes.Count(data[:end], []byte("\n"))
		data = data[end:]
	}
	return append(pieces, yamlPiece{data: data, before: before})
}

// yamlWrapper is the sequence of records of the object form (see
// wrapperMember), or nil after reporting what is wrong with it.
func (p *parser) yamlWrapper(m *yaml.Node) *yaml.Node {
	var seq *yaml.Node
	seen := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		switch {
		case seen[k.Value]:
			p.problem(Problem{Line: k.Line, Field: k.Value, Message: "given more than once"})
			return nil
		case k.Value == "$schema" && v.Kind != yaml.ScalarNode:
			p.problem(Problem{Line: v.Line, Field: k.Value, Message: "must be a string, the schema's address"})
			return nil
		case k.Value == wrapperMember && v.Kind != yaml.SequenceNode:
			p.problem(Problem{Line: v.Line, Field: k.Value, Message: "must be a sequence of records"})
			return nil
		case k.Value == wrapperMember:
			seq = v
		case k.Value != "$schema":
			p.problem(Problem{Line: k.Line, Field: k.Value, Message: "unknown member (known: $schema, " + wrapperMember + ")"})
			return nil
		}
		seen[k.Value] = true
	}
	if seq == nil {
		p.problem(Problem{Line: m.Line, Field: wrapperMember, Message: "is required: the sequence of records"})
	}
	return seq
}

// jsonMembers are the members of a record, as jsonRecord names them.
var jsonMembers = columns

// yamlCode is the code of the record n, as any reading of it would find
// it: the string of its one member named wbsElementCode in any case; ""
// where readings could differ (see jsonCode), and for a value that is no
// plain string (an alias, a tag, a number).
func yamlCode(n *yaml.Node) string {
	code, found := "", 0
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; k.Kind != yaml.ScalarNode || !strings.EqualFold(k.Value, "wbsElementCode") {
			continue
		}
		found++
		code, _ = yamlString(n.Content[i+1])
	}
	if found != 1 {
		return ""
	}
	return code
}

// yamlString returns the string of v, if it is a string scalar whose tag
// was not given.
func yamlString(v *yaml.Node) (string, bool) {
	if v.Kind != yaml.ScalarNode || v.Style&yaml.TaggedStyle != 0 || v.ShortTag() != "!!str" {
		return "", false
	}
	return v.Value, true
}

// textScalar reports whether v, or the node an alias v names, is a scalar
// of text: "yes", 'off' or a plain on, which yaml.v3 would decode into a
// bool as YAML 1.1 did.
func textScalar(v *yaml.Node) bool {
	if v.Kind == yaml.AliasNode && v.Alias != nil {
		v = v.Alias
	}
	return v.Kind == yaml.ScalarNode && v.ShortTag() == "!!str"
}

// scalarValue is the value of v, or of the node an alias v names.
func scalarValue(v *yaml.Node) string {
	if v.Kind == yaml.AliasNode && v.Alias != nil {
		return v.Alias.Value
	}
	return v.Value
}

// yamlFast reads a file of the form export writes, and that people write
// by hand, by a reader of its own: yaml.v3 took 16 to 30 times CSV's time
// for 20,000 records with links, most of it in its scanner and its nodes,
// this reader about 1.3 times (BenchmarkParseFormats, side by side). It
// reads only files whose every line it can tell yaml.v3 reads as it does,
// and that have no problem; it declines (ok false) any other, which
// yaml.v3 then reads:
//
//   - a block sequence at the first column of records, each a block
//     mapping of the four members, each at most once, starting on the
//     item's line ("- wbsElementCode: …") and going on at column 2;
//   - wbsElementCode a string, description a string or null, isActive
//     true, false or null (true, True, TRUE and so on: plain), and
//     businessOrganizations [] or a block sequence, at column 2 or
//     further, of mappings of both code and entityType, strings;
//   - a string on its one line: plain (not starting with an indicator,
//     holding no ": " or " #", not ending with ":"), or quoted in double
//     quotes without escapes, or in single quotes (two for a quote in it,
//     as export writes it's);
//   - blank lines and lines of a comment alone, between the others;
//   - printable characters, without tabs, and line breaks \n or \r\n.
//
// A plain string reads as its text, whatever else it looks like ("1000",
// 1e3), as yaml.v3 reads a scalar into a string; only the null words (~,
// null, Null, NULL, nothing) are null. TestFastReadersAgree holds the
// records to yaml.v3's.
func yamlFast(data []byte) ([]Record, bool) {
	if !yamlFastText(data) {
		return nil, false
	}
	l := yamlLines{rest: data}
	l.next()
	var recs recordBlocks
	for l.text != nil {
		if !bytes.HasPrefix(l.text, []byte("- ")) {
			return nil, false
		}
		r := Record{Line: int32(l.n)}
		var seen uint32 // a bit for each member read
		member := l.text[2:]
		for {
			if !l.member(&r, &seen, member) {
				return nil, false
			}
			if yamlIndent(l.text) != 2 {
				break
			}
			member = l.text[2:]
		}
		if seen&1 == 0 {
			return nil, false // no code: a problem
		}
		recs.add(r)
	}
	return recs.records(), len(recs) > 0
}

// yamlFastText reports whether data holds only what yamlFast reads: the
// characters yaml.v3 takes, but for the tab, and the line breaks \n and
// \r\n (U+0085, U+2028 and U+2029 break lines in YAML 1.1).
func yamlFastText(data []byte) bool {
	for i := 0; i < len(data); {
		c := data[i]
		switch {
		case c >= 0x20 && c < 0x7f || c == '\n':
			i++
			continue
		case c == '\r' && i+1 < len(data) && data[i+1] == '\n':
			i += 2
			continue
		case c < utf8.RuneSelf:
			return false
		}
		r, size := utf8.DecodeRune(data[i:])
		if r < 0xa0 || r == 0x2028 || r == 0x2029 || r == 0xfeff || r >= 0xfffe && r <= 0xffff || r == utf8.RuneError && size == 1 {
			return false
		}
		i += size
	}
	return true
}

// yamlLines reads the lines of a YAML file that hold more than spaces and a
// comment.
type yamlLines struct {
	rest []byte // what is left to read
	n    int    // the number of the line read last
	text []byte // its text, without its line break; nil at the end
	orgs orgLists
}

// next reads the next line that holds more than spaces and a comment.
func (l *yamlLines) next() {
	for len(l.rest) > 0 {
		var line []byte
		line, l.rest, _ = bytes.Cut(l.rest, []byte("\n"))
		l.n++
		line = bytes.TrimSuffix(line, []byte("\r"))
		if at := yamlIndent(line); at < len(line) && line[at] != '#' {
			l.text = line
			return
		}
	}
	l.text = nil
}

// yamlIndent is the number of spaces line starts with.
func yamlIndent(line []byte) int {
	n := 0
	for n < len(line) && line[n] == ' ' {
		n++
	}
	return n
}

// member reads the member of a record that text, the rest of the current
// line, starts with, into r, and moves on to the line after it. It reports
// false where yamlFast declines the file.
func (l *yamlLines) member(r *Record, seen *uint32, text []byte) bool {
	name, value, ok := yamlKey(text)
	if !ok {
		return false
	}
	var bit uint32
	switch string(name) {
	case "wbsElementCode":
		bit = 1
		code, null, ok := yamlFastScalar(value)
		if !ok || null {
			return false
		}
		r.Code = string(code)
	case "isActive":
		bit = 1 << 1
		switch string(value) {
		case "true", "True", "TRUE":
			r.IsActive = new(true)
		case "false", "False", "FALSE":
			r.IsActive = new(false)
		case "", "~", "null", "Null", "NULL":
		default:
			return false // a quoted or other scalar: a problem, or not a bool
		}
	case "businessOrganizations":
		bit = 1 << 2
		if r.Organizations, ok = l.organizations(value); !ok {
			return false
		}
		r.OrganizationsSet = true
		if *seen&bit != 0 {
			return false
		}
		*seen |= bit
		return true // organizations has moved on
	default:
		f := textFieldIndex(string(name))
		if f < 0 {
			return false
		}
		bit = 1 << (3 + f)
		text, null, ok := yamlFastScalar(value)
		if !ok {
			return false
		}
		if !null {
			d := string(text)
			*TextFields[f].Of(&r.Texts) = &d
		}
	}
	if *seen&bit != 0 {
		return false
	}
	*seen |= bit
	l.next()
	return true
}

// organizations reads the value of businessOrganizations, value on the
// current line: [] or, value empty, a block sequence on the lines after
// it. It moves on to the line after them.
func (l *yamlLines) organizations(value []byte) ([]sdk.BusinessOrganization, bool) {
	orgs := &l.orgs
	orgs.start()
	if string(value) == "[]" {
		l.next()
		return orgs.list(), true
	}
	if len(value) != 0 {
		return nil, false
	}
	l.next()
	at := yamlIndent(l.text)
	if at < 2 || !bytes.HasPrefix(l.text[at:], []byte("- ")) {
		return nil, false // null, or what yamlFast does not read
	}
	for yamlIndent(l.text) == at && bytes.HasPrefix(l.text[at:], []byte("- ")) {
		var m orgMembers
		text := l.text[at+2:]
		for {
			name, value, ok := yamlKey(text)
			if !ok {
				return nil, false
			}
			s, null, ok := yamlFastScalar(value)
			if !ok || null || !m.set(name, s) {
				return nil, false
			}
			l.next()
			if yamlIndent(l.text) != at+2 {
				break
			}
			text = l.text[at+2:]
		}
		if !m.whole() {
			return nil, false
		}
		orgs.add(m.code, m.entityType)
	}
	return orgs.list(), true
}

// yamlKey cuts text, a line from a key on, into the key, a plain word,
// and the value after ": ", without the spaces around it.
func yamlKey(text []byte) (key, value []byte, ok bool) {
	key, value, ok = bytes.Cut(text, []byte(":"))
	if !ok || len(key) == 0 || len(value) > 0 && value[0] != ' ' {
		return nil, nil, false
	}
	return key, bytes.Trim(value, " "), true
}

// yamlFastScalar reads value, a scalar on one line without the spaces
// around it, as yaml.v3 reads it into a string: its text, and whether it
// is null. It reports false for a scalar it cannot tell yaml.v3 reads so
// (see yamlFast).
func yamlFastScalar(value []byte) (text []byte, null, ok bool) {
	if len(value) == 0 {
		return nil, true, true
	}
	switch c := value[0]; {
	case c == '"':
		end := bytes.IndexByte(value[1:], c) + 1
		if end == 0 || end != len(value)-1 || bytes.IndexByte(value, '\\') >= 0 {
			return nil, false, false // escapes, or more after it
		}
		return value[1:end], false, true
	case c == '\'':
		if len(value) < 2 || value[len(value)-1] != c {
			return nil, false, false // more after it
		}
		text := value[1 : len(value)-1]
		if bytes.IndexByte(text, c) < 0 {
			return text, false, true
		}
		// Two quotes are one, as export writes 'it''s'; a quote alone
		// would end the scalar.
		if bytes.IndexByte(bytes.ReplaceAll(text, []byte("''"), nil), c) >= 0 {
			return nil, false, false
		}
		return bytes.ReplaceAll(text, []byte("''"), []byte("'")), false, true
	case strings.IndexByte("-?:,[]{}#&*!|>%@`", c) >= 0:
		return nil, false, false
	}
	if value[len(value)-1] == ':' || bytes.Contains(value, []byte(": ")) || bytes.Contains(value, []byte(" #")) {
		return nil, false, false
	}
	switch string(value) {
	case "~", "null", "Null", "NULL":
		return nil, true, true
	}
	return value, false, true
}
