package erpmap

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/wbsctl/wbsctl/internal/wbsfile"
	"gopkg.in/yaml.v3"
)

// Map is a map file read and checked on its own: its keys, its values
// and the syntax and types of its expressions. Its column names are
// found in an export's header by Read.
type Map struct {
	name   string
	digest string

	header headerRule
	where  *exprRule
	code   textRule
	// texts are the rules of wbsfile.TextFields, each nil where the map
	// leaves the field out.
	texts  []*textRule
	active *activeRule
	// organizations are the rules of the organizations, in the map's
	// order; organizationsSet says the map has the key (an empty one
	// owns no type and links nothing).
	organizations    []orgRule
	organizationsSet bool
}

// headerRule finds the header: the first row holding every name of find,
// or row row.
type headerRule struct {
	line int
	find []string
	row  int
}

// exprRule is an expression of the map and its line.
type exprRule struct {
	line int
	expr *expression
}

// textRule gives a text field: a column's cell (alpha: without leading
// zeros), an expression, or a value.
type textRule struct {
	path   string // the rule's key in the map, such as "organizations.plant"
	line   int
	column string
	alpha  bool
	expr   *expression
	value  *string
}

// activeRule gives isActive: a column's cell read as a boolean, or
// through map (of words, with words), or an expression.
type activeRule struct {
	line    int
	column  string
	expr    *expression
	words   bool
	entries []activeEntry
	mapLine int
	// orElse is what a cell no entry matches gives: nil is an error.
	orElse   *bool
	elseLine int
}

type activeEntry struct {
	key   string
	value bool
}

// orgRule gives the link of one entity type.
type orgRule struct {
	entityType string
	textRule
}

// maxMapBytes bounds a map file: a map is a page of YAML.
const maxMapBytes = 1 << 20

// Parse reads the map file data; name is how problems name the file
// (sap.wbsmap.yaml:9). Every problem of the file is returned at once, as
// an *Error, each naming its line.
func Parse(name string, data []byte) (*Map, error) {
	sum := sha256.Sum256(data)
	m := &Map{name: name, digest: "sha256:" + hex.EncodeToString(sum[:])}
	p := &mapParser{m: m}
	if len(data) > maxMapBytes {
		p.fail(0, "", "the map is larger than %d bytes", maxMapBytes)
		return nil, p.err()
	}
	if !utf8.Valid(data) {
		p.fail(invalidLine(data), "", "is not valid UTF-8: save the map as UTF-8")
		return nil, p.err()
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		p.fail(yamlErrorLine(err), "", "%s", yamlErrorText(err))
		return nil, p.err()
	}
	var more yaml.Node
	if err := dec.Decode(&more); err == nil {
		p.fail(more.Line, "", "a second YAML document: a map file holds one")
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		p.fail(max(doc.Line, 1), "", "a map file is a mapping of keys (version, header, wbsElementCode, …)")
		return nil, p.err()
	}
	p.root(doc.Content[0])
	if len(p.problems) > 0 {
		return nil, p.err()
	}
	return m, nil
}

// Name is the map file's name, as its problems give it.
func (m *Map) Name() string { return m.name }

// Digest is the sha256 of the map file's bytes, "sha256:…" as
// engine.FileDigest writes a file's: a saved plan records it beside the
// file's, so that --plan can refuse a map that changed since.
func (m *Map) Digest() string { return m.digest }

// OwnedTypes are the entity types the map names under organizations, in
// its order: the links of these types are the export's to state; a plan
// leaves the links of other types as the platform holds them. nil when
// the map has no organizations.
func (m *Map) OwnedTypes() []string {
	if len(m.organizations) == 0 {
		return nil
	}
	types := make([]string, len(m.organizations))
	for i, o := range m.organizations {
		types[i] = o.entityType
	}
	return types
}

// StatesOrganizations reports whether the map has organizations: the
// records' links of OwnedTypes are then stated (OrganizationsSet).
func (m *Map) StatesOrganizations() bool { return m.organizationsSet }

// at names the map's line: "sap.wbsmap.yaml:9".
func (m *Map) at(line int) string {
	if line <= 0 {
		return m.name
	}
	return m.name + ":" + strconv.Itoa(line)
}

type mapParser struct {
	m        *Map
	problems []MapProblem
}

func (p *mapParser) fail(line int, rule, format string, args ...any) {
	p.problems = append(p.problems, MapProblem{File: p.m.name, Line: line, Rule: rule, Message: fmt.Sprintf(format, args...)})
}

func (p *mapParser) err() error {
	return &Error{Problems: p.problems}
}

// keys are the keys of a map file, in the order a map is written.
var keys = slices.Concat([]string{"version", "header", "where", "wbsElementCode"}, wbsfile.TextFieldNames(), []string{"isActive", "organizations"})

func (p *mapParser) root(n *yaml.Node) {
	p.m.texts = make([]*textRule, len(wbsfile.TextFields))
	seen := map[string]*yaml.Node{}
	for k, v := range p.pairs(n, "") {
		if !slices.Contains(keys, k.Value) {
			p.fail(k.Line, "", "unknown key %q (the keys: %s)", k.Value, strings.Join(keys, ", "))
			continue
		}
		seen[k.Value] = v
		switch k.Value {
		case "version":
			if v.Kind != yaml.ScalarNode || v.Value != "1" {
				p.fail(v.Line, "version", "is %s: this wbsctl reads version 1", describe(v))
			}
		case "header":
			p.headerRule(v)
		case "where":
			if s, ok := p.scalar(v, "where"); ok {
				p.m.where = p.expr(v, "where", s, kindBool)
			}
		case "wbsElementCode":
			p.m.code = p.textRule(v, "wbsElementCode", false)
		case "isActive":
			p.m.active = p.activeRule(v)
		case "organizations":
			p.organizations(v)
		default:
			if f := slices.Index(wbsfile.TextFieldNames(), k.Value); f >= 0 {
				r := p.textRule(v, k.Value, true)
				p.m.texts[f] = &r
			}
		}
	}
	if seen["version"] == nil {
		p.fail(n.Line, "version", "the map has no version: begin it with version: 1")
	}
	if seen["header"] == nil {
		// The header is the first row, as in wbsctl's own files.
		p.m.header.row = 1
	}
	if seen["wbsElementCode"] == nil {
		p.fail(n.Line, "wbsElementCode", "the map has no wbsElementCode: name the column of the element's code")
	}
}

// pairs yields the keys and values of the mapping n, refusing a key given
// twice or a key that is not text; rule names n in messages.
func (p *mapParser) pairs(n *yaml.Node, rule string) func(yield func(k, v *yaml.Node) bool) {
	return func(yield func(k, v *yaml.Node) bool) {
		if n.Kind != yaml.MappingNode {
			return
		}
		first := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode || k.Tag == "!!merge" {
				p.fail(k.Line, rule, "a key is a name, not %s", describe(k))
				continue
			}
			if line, dup := first[k.Value]; dup {
				p.fail(k.Line, joinRule(rule, k.Value), "given twice (first on line %d)", line)
				continue
			}
			first[k.Value] = k.Line
			if !yield(k, v) {
				return
			}
		}
	}
}

func joinRule(rule, key string) string {
	if rule == "" {
		return key
	}
	return rule + "." + key
}

// scalar is the text of the scalar v, or a problem.
func (p *mapParser) scalar(v *yaml.Node, rule string) (string, bool) {
	if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
		p.fail(v.Line, rule, "is %s; a text is wanted", describe(v))
		return "", false
	}
	return v.Value, true
}

// column reads a column's name.
func (p *mapParser) column(v *yaml.Node, rule string) (string, bool) {
	s, ok := p.scalar(v, rule)
	if ok && s == "" {
		p.fail(v.Line, rule, "names no column: give the column's name as the header shows it")
		return "", false
	}
	return s, ok
}

func (p *mapParser) boolean(v *yaml.Node, rule string) (bool, bool) {
	if v.Kind == yaml.ScalarNode && v.Tag == "!!bool" {
		var b bool
		if err := v.Decode(&b); err == nil {
			return b, true
		}
	}
	p.fail(v.Line, rule, "is %s; true or false is wanted", describe(v))
	return false, false
}

func (p *mapParser) expr(v *yaml.Node, rule, src string, want kind) *exprRule {
	e, err := parseExpr(src, want)
	if err != nil {
		p.fail(v.Line, rule, "%s", err)
		return nil
	}
	return &exprRule{line: v.Line, expr: e}
}

func (p *mapParser) headerRule(v *yaml.Node) {
	h, before := &p.m.header, len(p.problems)
	h.line = v.Line
	if v.Kind != yaml.MappingNode {
		p.fail(v.Line, "header", "is %s: write {find: [names…]} or {row: N}", describe(v))
		return
	}
	for k, val := range p.pairs(v, "header") {
		switch k.Value {
		case "find":
			h.line = val.Line
			if val.Kind != yaml.SequenceNode || len(val.Content) == 0 {
				p.fail(val.Line, "header.find", "is %s: list the names of the header's columns, [PSP-Element, Bezeichnung]", describe(val))
				continue
			}
			for _, item := range val.Content {
				name, ok := p.column(item, "header.find")
				if !ok {
					continue
				}
				if slices.Contains(h.find, name) {
					p.fail(item.Line, "header.find", "names %q twice", name)
					continue
				}
				h.find = append(h.find, name)
			}
		case "row":
			h.line = val.Line
			n, err := strconv.Atoi(val.Value)
			if val.Kind != yaml.ScalarNode || err != nil || n < 1 || n > maxHeaderRow {
				p.fail(val.Line, "header.row", "is %s: give the header's row number, 1 to %d", describe(val), maxHeaderRow)
				continue
			}
			h.row = n
		default:
			p.fail(k.Line, "header", "unknown key %q (the keys: find, row)", k.Value)
		}
	}
	switch {
	case h.find != nil && h.row != 0:
		p.fail(v.Line, "header", "gives both find and row: give one")
	case h.find == nil && h.row == 0 && len(p.problems) == before:
		p.fail(v.Line, "header", "gives neither find nor row")
	}
}

// textRule reads a text field: a bare column name, {column, alpha},
// {expr} or, where value is allowed, {value}.
func (p *mapParser) textRule(v *yaml.Node, rule string, value bool) textRule {
	r, before := textRule{path: rule, line: v.Line}, len(p.problems)
	if v.Kind == yaml.ScalarNode {
		r.column, _ = p.column(v, rule)
		return r
	}
	forms := "a column's name, {column: NAME, alpha: true} or {expr: EXPRESSION}"
	if value {
		forms = "a column's name, {column: NAME, alpha: true}, {expr: EXPRESSION} or {value: TEXT}"
	}
	if v.Kind != yaml.MappingNode {
		p.fail(v.Line, rule, "is %s: write %s", describe(v), forms)
		return r
	}
	alphaSet := false
	for k, val := range p.pairs(v, rule) {
		switch k.Value {
		case "column":
			r.column, _ = p.column(val, rule+".column")
		case "alpha":
			r.alpha, _ = p.boolean(val, rule+".alpha")
			alphaSet = true
		case "expr":
			if s, ok := p.scalar(val, rule+".expr"); ok {
				if e := p.expr(val, rule, s, kindText); e != nil {
					r.expr, r.line = e.expr, val.Line
				}
			}
		case "value":
			if !value {
				p.fail(k.Line, rule, "value gives every row the same text, which %s cannot be", rule)
				continue
			}
			if s, ok := p.scalar(val, rule+".value"); ok {
				r.value = &s
			}
		default:
			p.fail(k.Line, rule, "unknown key %q: write %s", k.Value, forms)
		}
	}
	given := 0
	for _, set := range []bool{r.column != "", r.expr != nil, r.value != nil} {
		if set {
			given++
		}
	}
	switch {
	case given > 1:
		p.fail(v.Line, rule, "gives more than one of column, expr and value: give one")
	case given == 0 && len(p.problems) == before:
		p.fail(v.Line, rule, "gives no column: write %s", forms)
	case alphaSet && r.column == "":
		p.fail(v.Line, rule, "alpha goes with column; in an expression, write alpha(Column)")
	}
	return r
}

func (p *mapParser) activeRule(v *yaml.Node) *activeRule {
	r, before := &activeRule{line: v.Line}, len(p.problems)
	const forms = "a column of booleans, {column: NAME, map: {STATUS: true|false, …}, words: true, else: error|true|false} or {expr: EXPRESSION}"
	if v.Kind == yaml.ScalarNode {
		r.column, _ = p.column(v, "isActive")
		return r
	}
	if v.Kind != yaml.MappingNode {
		p.fail(v.Line, "isActive", "is %s: write %s", describe(v), forms)
		return r
	}
	elseGiven, wordsGiven := false, false
	for k, val := range p.pairs(v, "isActive") {
		switch k.Value {
		case "column":
			r.column, _ = p.column(val, "isActive.column")
		case "expr":
			if s, ok := p.scalar(val, "isActive.expr"); ok {
				if e := p.expr(val, "isActive", s, kindBool); e != nil {
					r.expr, r.line = e.expr, val.Line
				}
			}
		case "words":
			r.words, _ = p.boolean(val, "isActive.words")
			wordsGiven = true
		case "map":
			r.mapLine = k.Line
			p.activeEntries(r, val)
		case "else":
			elseGiven, r.elseLine = true, val.Line
			switch {
			case val.Kind == yaml.ScalarNode && val.Value == "error":
			case val.Kind == yaml.ScalarNode && val.Tag == "!!bool":
				b, _ := p.boolean(val, "isActive.else")
				r.orElse = &b
			default:
				p.fail(val.Line, "isActive.else", "is %s: write error, true or false", describe(val))
			}
		default:
			p.fail(k.Line, "isActive", "unknown key %q: write %s", k.Value, forms)
		}
	}
	switch {
	case r.column != "" && r.expr != nil:
		p.fail(v.Line, "isActive", "gives both column and expr: give one")
	case r.column == "" && r.expr == nil && len(p.problems) == before:
		p.fail(v.Line, "isActive", "gives no column: write %s", forms)
	case r.expr != nil && (r.mapLine != 0 || wordsGiven || elseGiven):
		p.fail(v.Line, "isActive", "map, words and else read a column; an expression gives the boolean itself")
	case r.mapLine == 0 && (wordsGiven || elseGiven):
		p.fail(v.Line, "isActive", "words and else go with map: map each status to true or false")
	}
	return r
}

func (p *mapParser) activeEntries(r *activeRule, v *yaml.Node) {
	if v.Kind != yaml.MappingNode || len(v.Content) == 0 {
		p.fail(v.Line, "isActive.map", "is %s: map each status to true or false, {CLSD: false, REL: true}", describe(v))
		return
	}
	for k, val := range p.pairs(v, "isActive.map") {
		b, ok := p.boolean(val, "isActive.map."+k.Value)
		if !ok {
			continue
		}
		if r.words && strings.ContainsFunc(k.Value, func(c rune) bool { return c < utf8.RuneSelf && isSpace(byte(c)) }) {
			p.fail(k.Line, "isActive.map", "%q holds a space, which words: true splits on", k.Value)
		}
		r.entries = append(r.entries, activeEntry{key: k.Value, value: b})
	}
}

func (p *mapParser) organizations(v *yaml.Node) {
	p.m.organizationsSet = true
	if v.Kind != yaml.MappingNode {
		if v.Tag != "!!null" {
			p.fail(v.Line, "organizations", "is %s: map each entity type to its column, company: Buchungskreis", describe(v))
		}
		return
	}
	for k, val := range p.pairs(v, "organizations") {
		rule := "organizations." + k.Value
		if k.Value == "" || strings.TrimSpace(k.Value) != k.Value || strings.ContainsFunc(k.Value, func(r rune) bool { return r < 0x20 || r >= 0x7f && r <= 0x9f }) {
			p.fail(k.Line, "organizations", "the entity type %q: give a name without spaces around it or control characters", k.Value)
			continue
		}
		p.m.organizations = append(p.m.organizations, orgRule{entityType: k.Value, textRule: p.textRule(val, rule, true)})
	}
}

// maxHeaderRow is the last row a header is looked for in.
const maxHeaderRow = 50

// describe says what a YAML node is, for a message.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	if n.Tag == "!!null" {
		return "empty"
	}
	return strconv.Quote(n.Value)
}

// yamlErrorLine is the line a yaml.v3 error names, or 1.
func yamlErrorLine(err error) int {
	msg := err.Error()
	if _, rest, ok := strings.Cut(msg, "line "); ok {
		end := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
		if end < 0 {
			end = len(rest)
		}
		if n, err := strconv.Atoi(rest[:end]); err == nil {
			return n
		}
	}
	return 1
}

// yamlErrorText is a yaml.v3 error without its prefix and line.
func yamlErrorText(err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if _, rest, ok := strings.Cut(msg, ": "); ok && strings.HasPrefix(msg, "line ") {
		return rest
	}
	return msg
}

// invalidLine is the line of data, counted from 1, that is not UTF-8.
func invalidLine(data []byte) int {
	for n, line := range bytes.Split(data, []byte("\n")) {
		if !utf8.Valid(line) {
			return n + 1
		}
	}
	return 1
}
