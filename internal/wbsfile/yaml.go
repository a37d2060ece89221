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

	"golang.org/x/sync/errgroup"
	"gopkg.in/yaml.v3"
)

func (p *parser) yaml(data []byte) []Record {
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
				p.problem(Problem{Line: n.Content[i].Line + before, Code: code, Field: k, Message: "unknown member (known: wbsElementCode, description, isActive, businessOrganizations)"})
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
// file read whole takes many times its size (docs/benchmarks.md has the
// figures). It reports false, having read nothing into p, where the file
// is not one that cutting leaves the same (see yamlPieces) and where any
// piece has a problem, whose message the whole file's reading then gives
// with the file's own lines. FuzzYAMLPieces holds the records to the whole
// file's.
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
var jsonMembers = []string{"wbsElementCode", "description", "isActive", "businessOrganizations"}

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
