package engine

import (
	"bytes"
	"errors"
	"io"
	"strings"

	"gopkg.in/yaml.v3"
)

func (p *parser) yaml(data []byte) []Record {
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
		p.problem(Problem{Line: line, Message: "a second YAML document: a file holds one sequence of records"})
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
		p.problem(Problem{Line: seq.Line, Message: "a YAML file must hold a sequence of records, or a mapping of $schema and " + wrapperMember})
		return nil
	}
	var recs []Record
	for _, n := range seq.Content {
		if n.Kind != yaml.MappingNode {
			p.problem(Problem{Line: n.Line, Message: "a record must be a mapping"})
			continue
		}
		ok, dup := true, false
		seen := map[string]bool{}
		for i := 0; i < len(n.Content); i += 2 {
			k := n.Content[i].Value
			switch {
			case seen[k]:
				p.problem(Problem{Line: n.Content[i].Line, Field: k, Message: "given more than once"})
				ok, dup = false, true
			case k == "wbsElementCode", k == "description", k == "isActive", k == "businessOrganizations":
			default:
				p.problem(Problem{Line: n.Content[i].Line, Field: k, Message: "unknown member (known: wbsElementCode, description, isActive, businessOrganizations)"})
				ok = false
			}
			seen[k] = true
		}
		if dup {
			continue // decoding would only repeat it
		}
		var j jsonRecord
		if err := n.Decode(&j); err != nil {
			p.problem(Problem{Line: n.Line, Message: "wrong type: " + strings.TrimPrefix(err.Error(), "yaml: unmarshal errors:\n  ")})
			continue
		}
		if j.Code == nil {
			p.problem(Problem{Line: n.Line, Field: "wbsElementCode", Message: "is required"})
			continue
		}
		if ok {
			recs = append(recs, j.record(n.Line))
		}
	}
	return recs
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
