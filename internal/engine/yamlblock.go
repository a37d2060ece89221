package engine

import (
	"bytes"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// readBlockSequence builds the node that yaml.v3 makes of data, a YAML
// file whose root is a block sequence of records, when every line of data
// is of the form that export -o yaml writes and that most files written by
// hand take:
//
//	# a comment, or a blank line, anywhere
//	- key: scalar
//	  key: []
//	  key:
//	    - key: scalar
//	      key: scalar
//	    - {key: scalar, key: scalar}
//
// A scalar is plain, single-quoted, or double-quoted without escapes, on
// its line. A key is letters, digits and underscores. A nested sequence is
// of mappings, indented as deep as its key or deeper. For anything else
// (other flow collections, block scalars, anchors, tags, a scalar over
// lines, a tab, a document marker) it reports false, and yaml.v3 reads the
// file.
// yaml.v3, which scans a character at a time and keeps every mark and
// comment, took three quarters of a YAML dry run's time. FuzzYAMLBlock
// holds the nodes this builds to yaml.v3's: kind, style, tag, value, line
// and column.
func readBlockSequence(data []byte) (*yaml.Node, bool) {
	var b blockReader
	for n := 1; len(data) > 0; n++ {
		var line []byte
		line, data, _ = bytes.Cut(data, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		if !yamlPrintable(line) {
			return nil, false
		}
		if !b.line(line, n) {
			return nil, false
		}
	}
	if b.root == nil || b.open {
		return nil, false
	}
	return b.root, true
}

// A blockReader builds the nodes of a block sequence of records a line at
// a time.
type blockReader struct {
	root   *yaml.Node // the sequence of records
	record *yaml.Node // the record being read
	open   bool       // the record's last key has no value yet: a sequence follows
	seq    *yaml.Node // the record's nested sequence being read
	indent int        // the indentation of seq's items
	item   *yaml.Node // seq's item being read
	nodes  []yaml.Node
}

const (
	yamlStrTag = "!!str"
	yamlSeqTag = "!!seq"
	yamlMapTag = "!!map"
)

// line reads the nth line, other than its line break.
func (b *blockReader) line(line []byte, n int) bool {
	content := bytes.TrimLeft(line, " ")
	indent := len(line) - len(content)
	if len(content) == 0 || content[0] == '#' {
		return true
	}
	dash := bytes.HasPrefix(content, []byte("- "))
	if indent == 0 && dash {
		if b.open {
			return false
		}
		if b.root == nil {
			b.root = b.node(yaml.SequenceNode, yamlSeqTag, "", 0, n, 1)
		}
		b.record, b.seq, b.item = b.node(yaml.MappingNode, yamlMapTag, "", 0, n, 3), nil, nil
		b.root.Content = append(b.root.Content, b.record)
		return b.member(b.record, content[2:], n, 3, true)
	}
	if b.record == nil {
		return false
	}
	if b.open {
		if indent < 2 || !dash {
			return false
		}
		b.seq, b.indent, b.item, b.open = b.node(yaml.SequenceNode, yamlSeqTag, "", 0, n, indent+1), indent, nil, false
		b.record.Content = append(b.record.Content, b.seq)
	}
	switch {
	case b.seq != nil && indent == b.indent && bytes.HasPrefix(content, []byte("- {")):
		b.item = nil // whole on its line
		m := b.flowMapping(content[2:], n, indent+3)
		b.seq.Content = append(b.seq.Content, m)
		return m != nil
	case b.seq != nil && indent == b.indent && dash:
		b.item = b.node(yaml.MappingNode, yamlMapTag, "", 0, n, indent+3)
		b.seq.Content = append(b.seq.Content, b.item)
		return b.member(b.item, content[2:], n, indent+3, false)
	case b.item != nil && indent == b.indent+2:
		return b.member(b.item, content, n, indent+1, false)
	case indent == 2 && !dash:
		b.seq, b.item = nil, nil
		return b.member(b.record, content, n, 3, true)
	}
	return false
}

// member reads "key: value", which starts at column col of line n, into
// the mapping m. A key without a value opens a sequence where open is
// allowed.
func (b *blockReader) member(m *yaml.Node, s []byte, n, col int, open bool) bool {
	k := 0
	for k < len(s) && k <= 1024 && isKeyByte(s[k]) {
		k++
	}
	if k == 0 || k > 1024 || k == len(s) || s[k] != ':' {
		return false
	}
	key := b.plain(s[:k], n, col)
	rest := s[k+1:]
	v := bytes.TrimLeft(rest, " ")
	if len(v) == 0 {
		if !open {
			return false
		}
		m.Content = append(m.Content, key)
		b.open = true
		return true
	}
	if len(v) == len(rest) {
		return false // "key:value" is one plain scalar
	}
	value := b.scalar(v, n, col+k+1+len(rest)-len(v))
	if value == nil {
		return false
	}
	m.Content = append(m.Content, key, value)
	return true
}

// flowMapping reads s, the rest of line n from column col, as a flow
// mapping of scalars on one line, "{key: value, key: value}", or returns
// nil. In it, a plain scalar holds none of the characters that end one in
// a flow collection (",?[]{}") or start a comment, a quote or a value.
func (b *blockReader) flowMapping(s []byte, n, col int) *yaml.Node {
	m := b.node(yaml.MappingNode, yamlMapTag, "", yaml.FlowStyle, n, col)
	at := 1 // the byte of s being read
	spaces := func() {
		for at < len(s) && s[at] == ' ' {
			at++
		}
	}
	for spaces(); at < len(s) && isKeyByte(s[at]); spaces() {
		k := at
		for at < len(s) && isKeyByte(s[at]) {
			at++
		}
		if at-k > 1024 || at+1 >= len(s) || s[at] != ':' || s[at+1] != ' ' {
			return nil
		}
		key := b.plain(s[k:at], n, col+utf8.RuneCount(s[:k]))
		at++
		spaces()
		v := at
		if at < len(s) && (s[at] == '"' || s[at] == '\'') {
			end := bytes.IndexByte(s[at+1:], s[at])
			if end < 0 {
				return nil
			}
			at += end + 2
		} else {
			for at < len(s) && bytes.IndexByte([]byte(",?[]{}#:'\""), s[at]) < 0 {
				at++
			}
		}
		if v == at {
			return nil
		}
		// A plain value stops before '[', so this is a scalar.
		value := b.scalar(bytes.TrimRight(s[v:at], " "), n, col+utf8.RuneCount(s[:v]))
		if value == nil {
			return nil
		}
		m.Content = append(m.Content, key, value)
		if spaces(); at < len(s) && s[at] == ',' {
			at++
			continue
		}
		break
	}
	if at == len(s) || s[at] != '}' || len(bytes.TrimRight(s[at+1:], " ")) > 0 {
		return nil
	}
	return m
}

// scalar reads s, the rest of line n from column col, as a scalar or an
// empty flow sequence, or returns nil.
func (b *blockReader) scalar(s []byte, n, col int) *yaml.Node {
	var value []byte
	var style yaml.Style
	switch s[0] {
	case '"':
		end := bytes.IndexByte(s[1:], '"')
		if end < 0 || bytes.IndexByte(s[1:1+end], '\\') >= 0 {
			return nil
		}
		value, style, s = s[1:1+end], yaml.DoubleQuotedStyle, s[2+end:]
	case '\'':
		value, style, s = nil, yaml.SingleQuotedStyle, s[1:]
		for {
			end := bytes.IndexByte(s, '\'')
			if end < 0 {
				return nil
			}
			value = append(value, s[:end]...)
			if s = s[end+1:]; len(s) == 0 || s[0] != '\'' {
				break
			}
			value, s = append(value, '\''), s[1:]
		}
		if value == nil {
			value = []byte{}
		}
	case '[':
		if len(bytes.TrimRight(s[1:], " ")) != 1 || s[1] != ']' {
			return nil
		}
		return b.node(yaml.SequenceNode, yamlSeqTag, "", yaml.FlowStyle, n, col)
	default:
		if bytes.IndexByte([]byte("-?:,[]{}#&*!|>'\"%@`"), s[0]) >= 0 {
			return nil
		}
		s = bytes.TrimRight(s, " ")
		if s[len(s)-1] == ':' || bytes.Contains(s, []byte(": ")) || bytes.Contains(s, []byte(" #")) {
			return nil
		}
		return b.plain(s, n, col)
	}
	if len(bytes.TrimRight(s, " ")) > 0 {
		return nil // more after the closing quote
	}
	return b.node(yaml.ScalarNode, yamlStrTag, string(value), style, n, col)
}

// plain is the plain scalar s at line n, column col, with the tag yaml.v3
// resolves it to.
func (b *blockReader) plain(s []byte, n, col int) *yaml.Node {
	value := memberName(s)
	if value == "" {
		value = string(s)
	}
	tag := (&yaml.Node{Kind: yaml.ScalarNode, Value: value}).ShortTag()
	if value == "<<" {
		tag = "!!merge" // as yaml.v3's parser tags it
	}
	return b.node(yaml.ScalarNode, tag, value, 0, n, col)
}

// memberName is the name of a record's member or an organization's that s
// spells, without allocating, or "".
func memberName(s []byte) string {
	for _, names := range [][]string{jsonMembers, organizationMembers} {
		for _, name := range names {
			if string(s) == name {
				return name
			}
		}
	}
	return ""
}

// organizationMembers are the members of a link, as fileOrganization
// names them.
var organizationMembers = []string{"code", "entityType"}

// isKeyByte reports whether c may be part of a key.
func isKeyByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// node returns a new node, allocated with others in blocks.
func (b *blockReader) node(kind yaml.Kind, tag, value string, style yaml.Style, line, column int) *yaml.Node {
	if len(b.nodes) == cap(b.nodes) {
		b.nodes = make([]yaml.Node, 0, 256)
	}
	b.nodes = append(b.nodes, yaml.Node{Kind: kind, Style: style, Tag: tag, Value: value, Line: line, Column: column})
	return &b.nodes[len(b.nodes)-1]
}

// yamlPrintable reports whether line has only characters that yaml.v3
// reads as themselves in a scalar on one line: no tab, control character,
// line break other than \n, byte order mark or invalid UTF-8.
func yamlPrintable(line []byte) bool {
	for i := 0; i < len(line); {
		if c := line[i]; c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(line[i:])
		switch {
		case r == utf8.RuneError && size == 1, r < 0xa0, r == 0x2028, r == 0x2029, r == 0xfeff, r >= 0xd800 && r < 0xe000, r > 0xfffd && r < 0x10000:
			return false
		}
		i += size
	}
	return true
}
