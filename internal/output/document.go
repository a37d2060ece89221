package output

import (
	"bytes"
	"encoding/json"
	"fmt"
	"iter"

	"gopkg.in/yaml.v3"

	"github.com/wbsctl/wbsctl/internal/jsondoc"
)

// Document writes one value, as Single does, whose top-level member name
// is a list given as items, which head holds empty: JSON, YAML and NDJSON
// write the items one at a time, so that the document of a plan of
// 200,000 changes is never held whole, nor its text. JSON and YAML are the
// bytes Single writes for the whole document, and so is the JSON that the
// other formats write of a document; NDJSON writes an item a line, then
// the rest of the document on one line. --jq and --template take the
// document whole.
func (p *Printer) Document(head any, name string, items iter.Seq[any]) error {
	if err := p.document(head, name, items); err != nil {
		_ = p.w.Flush()
		return err
	}
	return p.w.Flush()
}

func (p *Printer) document(head any, name string, items iter.Seq[any]) error {
	if p.query == nil && p.tmpl == nil {
		switch p.format {
		case NDJSON:
			// The rest is made, and the head so checked, before the
			// first item is written.
			var rest bytes.Buffer
			if err := jsondoc.Write[any](&rest, "", head, name, nil); err != nil {
				return err
			}
			enc := json.NewEncoder(p.w)
			for item := range items {
				if err := enc.Encode(item); err != nil {
					return err
				}
			}
			_, err := p.w.Write(rest.Bytes())
			return err
		case YAML:
			return p.yamlDocument(head, name, items)
		}
		// JSON, and the JSON that a table or CSV writes of a document.
		return jsondoc.Write(p.w, "  ", head, name, items)
	}
	doc, err := members(head, name)
	if err != nil {
		return err
	}
	list := []any{}
	for item := range items {
		generic, err := Generic(item)
		if err != nil {
			return err
		}
		list = append(list, generic)
	}
	doc[name] = list
	return p.single(doc)
}

// members is the JSON form of head, an object holding the member name.
func members(head any, name string) (map[string]any, error) {
	generic, err := Generic(head)
	if err != nil {
		return nil, err
	}
	doc, ok := generic.(map[string]any)
	if _, found := doc[name]; !ok || !found {
		return nil, fmt.Errorf("%T is no object with a member %s", head, name)
	}
	return doc, nil
}

// yamlDocument writes the document as yaml.v3 encodes its JSON form, a
// member at a time in the encoder's order of names, the items of name as
// a list under it: yaml.v3 builds a tree of all it encodes, many times
// the size of a large plan.
func (p *Printer) yamlDocument(head any, name string, items iter.Seq[any]) error {
	doc, err := members(head, name)
	if err != nil {
		return err
	}
	// The encoder's order of names, which sorts numbers within them as
	// numbers; each member is then encoded alone, as a map of it.
	var node yaml.Node
	if err := node.Encode(doc); err != nil {
		return err
	}
	for i := 0; i < len(node.Content); i += 2 {
		key := node.Content[i].Value
		if key == name {
			if err := p.yamlList(name, items); err != nil {
				return err
			}
			continue
		}
		b, err := yaml.Marshal(map[string]any{key: doc[key]})
		if err != nil {
			return err
		}
		if _, err := p.w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// yamlList writes the member name with items as its list: each item as
// YAMLItem encodes it, indented under the name as the encoder indents a
// list that is a member's value.
func (p *Printer) yamlList(name string, items iter.Seq[any]) error {
	first := true
	for item := range items {
		b, err := YAMLItem(item)
		if err != nil {
			return err
		}
		if first {
			key, err := yaml.Marshal(map[string]any{name: nil})
			if err != nil {
				return err
			}
			// The name as the encoder writes it, without its null.
			p.w.Write(bytes.TrimSuffix(key, []byte(" null\n")))
			p.w.Write([]byte("\n"))
			first = false
		}
		for line := range bytes.Lines(b) {
			if len(line) > 1 { // an empty line of a block scalar stays empty
				p.w.Write([]byte("    "))
			}
			if _, err := p.w.Write(line); err != nil {
				return err
			}
		}
	}
	if !first {
		return nil
	}
	b, err := yaml.Marshal(map[string]any{name: []any{}})
	if err != nil {
		return err
	}
	_, err = p.w.Write(b)
	return err
}

// Each yields the items of seq as values of any type, for Document.
func Each[T any](seq iter.Seq[T]) iter.Seq[any] {
	return func(yield func(any) bool) {
		for v := range seq {
			if !yield(v) {
				return
			}
		}
	}
}
