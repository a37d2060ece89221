package engine

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// A record that readYAMLRecord reads is what yaml.v3's decoder makes of
// it: the same record, and no error.
func FuzzYAMLRecord(f *testing.F) {
	for _, s := range []string{
		"- wbsElementCode: B-000001\n  description: baseline\n  isActive: true\n  businessOrganizations:\n    - code: \"1000\"\n      entityType: company\n    - code: B1\n      entityType: branch\n",
		"- {wbsElementCode: 'A', description: \"x\", isActive: false, businessOrganizations: []}",
		"- wbsElementCode: 123\n  description: ~\n  isActive: yes\n",
		"- wbsElementCode: !!str 123\n  description: !!null foo\n  isActive: !!bool true\n",
		"- wbsElementCode: &a A\n  description: *a\n",
		"- <<: {wbsElementCode: A}\n  description: d\n",
		"- wbsElementCode: A\n  wbsElementCode: B\n",
		"- wbsElementCode:\n  description: null\n  isActive: True\n  businessOrganizations: ~\n",
		"- wbsElementCode: A\n  businessOrganizations: [{code: 1000, entityType: company}, {code: x, code: y}, {}]\n",
		"- wbsElementCode: A\n  businessOrganizations: [{code: ~, entityType: company}, {code: a, other: b}]\n",
		"- wbsElementCode: |\n    two\n    lines\n  description: >-\n    folded\n",
		"- wbsElementCode: [A]\n  description: {a: b}\n  isActive: 1\n",
		"- !!map {wbsElementCode: A}\n- wbsElementCode: !!binary QQ==\n",
		"- wbsElementCode: A\n  businessOrganizations: !!seq [{code: a, entityType: b}]\n",
		"- ? wbsElementCode\n  : A\n  \"description\": 'it''s'\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var doc yaml.Node
		if yaml.Unmarshal(b, &doc) != nil {
			return
		}
		var walk func(n *yaml.Node)
		walk = func(n *yaml.Node) {
			if n.Kind == yaml.MappingNode {
				var fast jsonRecord
				if readYAMLRecord(n, &fast) {
					var slow jsonRecord
					if err := n.Decode(&slow); err != nil || !reflect.DeepEqual(fast, slow) {
						t.Fatalf("read %+v; yaml.v3 decodes %+v, %v, of\n%s", fast, slow, err, b)
					}
				}
			}
			for _, c := range n.Content {
				walk(c)
			}
		}
		walk(&doc)
	})
}

// A file that yamlInPieces reads, cut before every item it may be cut
// before, gives the records, lines and all, that reading it whole gives,
// and reading it whole finds no problem.
func FuzzYAMLPieces(f *testing.F) {
	item := "- wbsElementCode: B-%d\n  description: baseline\n  isActive: true\n  businessOrganizations:\n    - code: \"1000\"\n      entityType: company\n"
	var three string
	for i := range 3 {
		three += fmt.Sprintf(item, i)
	}
	for _, s := range []string{
		three,
		"# records\n\n" + three,
		strings.ReplaceAll(three, "\n", "\r\n"),
		"- wbsElementCode: A\n  description: \"two\n- wbsElementCode: B\"\n- wbsElementCode: C\n",
		"- wbsElementCode: A\n  description: 'two\n- wbsElementCode: B'\n- wbsElementCode: C\n",
		"- wbsElementCode: A\n  description: [x,\n- y]\n- wbsElementCode: C\n",
		"- wbsElementCode: A\n  description: |\n    text\n- wbsElementCode: B\n  description: >+\n    kept\n\n\n- wbsElementCode: C\n",
		"- wbsElementCode: A\n  description: plain\n  more\n- wbsElementCode: B\n",
		"- wbsElementCode: &a A\n- wbsElementCode: B\n  description: *a\n",
		"- wbsElementCode: A\n...\n- wbsElementCode: B\n",
		"- wbsElementCode: A\n---\n- wbsElementCode: B\n",
		"- wbsElementCode: A\r...\n- wbsElementCode: B\n",
		"- wbsElementCode: A\u2028...\n- wbsElementCode: B\n",
		"%YAML 1.1\n---\n- wbsElementCode: A\n- wbsElementCode: B\n",
		"records:\n- wbsElementCode: A\n- wbsElementCode: B\n",
		"- wbsElementCode: A\n- - nested\n- wbsElementCode: B\n  wbsElementCode: C\n",
		"- ? wbsElementCode\n  : A\n- {wbsElementCode: B}\n- wbsElementCode: C\n  isActive: yes\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !utf8.Valid(b) {
			return // ParseBytes reads no other
		}
		cut := &parser{file: &File{}}
		recs, ok := cut.yamlInPieces(b, 1)
		if !ok {
			if len(cut.file.Problems) > 0 {
				t.Fatalf("declined with problems %v", cut.file.Problems)
			}
			return
		}
		whole := &parser{file: &File{}}
		want := whole.yamlDocument(b, 0)
		if len(whole.file.Problems) > 0 {
			t.Fatalf("read in pieces as %+v; whole, the file has problems %v:\n%s", recs, whole.file.Problems, b)
		}
		if !reflect.DeepEqual(recs, want) {
			t.Fatalf("read in pieces as %+v; whole as %+v:\n%s", recs, want, b)
		}
	})
}

// A file that readBlockSequence reads is one yaml.v3 reads as one document
// whose root is a sequence, and the nodes of the two agree in kind, style,
// tag, value, line, column and content.
func FuzzYAMLBlock(f *testing.F) {
	for _, s := range []string{
		"- wbsElementCode: B-000001\n  description: baseline\n  isActive: true\n  businessOrganizations:\n    - code: \"1000\"\n      entityType: company\n    - code: B1\n      entityType: branch\n",
		"# records\n\n- wbsElementCode: X-1\n  description: 'Büro: \"a\" #1'\n  isActive: false\n  businessOrganizations: []\n- wbsElementCode: X-2\n  description: \"\"\n",
		"- wbsElementCode: A\r\n  businessOrganizations:\r\n  - code: a\r\n    entityType: b\r\n  # note\r\n  description: it's, [so] {x}\r\n",
		"- wbsElementCode: 0x1F\n  description: 2026-11-25\n  isActive: yes\n- wbsElementCode: null\n  description: ~\n  isActive: True\n",
		"- wbsElementCode:   spaced   \n  description: 'it''s'  \n  other: <<\n  x: .inf\n",
		"- wbsElementCode: A\n  description: plain\n  more\n",
		"- wbsElementCode: A\n  description: a #b\n- wbsElementCode: a:b\n  description: a: b\n",
		"- wbsElementCode: A\n  businessOrganizations:\n- code: x\n",
		"- wbsElementCode: A\n  businessOrganizations:\n      - code: x\n        entityType: y\n      - code: z\n  isActive: false\n",
		"- wbsElementCode: A\n  description: \"a\\\"b\"\n- description: \"x\" y\n",
		"- wbsElementCode: A\n  description:\n",
		"- wbsElementCode: \"two\n  lines\"\n",
		"- wbsElementCode: A\n...\n",
		"- wbsElementCode: A\n\tdescription: tab\n",
		"- wbsElementCode: P-1\n  businessOrganizations:\n    - {code: \"1000\", entityType: company}\n    - { code: 'B3' ,entityType: Büro Nord }\n    - {}\n",
		"- wbsElementCode: P-2\n  businessOrganizations:\n  - {code: a, entityType: b,}\n  - {code: 'it''s', x: y}\n  - {code: a b: c}\n  - {code: [x]}\n",
		"- wbsElementCode: P-3\n  businessOrganizations:\n    - {code: a?b, entityType: c}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := readBlockSequence(b)
		if !ok {
			return
		}
		dec := yaml.NewDecoder(strings.NewReader(string(b)))
		var doc, next yaml.Node
		if err := dec.Decode(&doc); err != nil {
			t.Fatalf("read; yaml.v3 refuses it: %v:\n%q", err, b)
		}
		if err := dec.Decode(&next); err == nil {
			t.Fatalf("read; yaml.v3 finds a second document:\n%q", b)
		}
		if len(doc.Content) != 1 {
			t.Fatalf("read; yaml.v3 finds no root:\n%q", b)
		}
		var same func(path string, a, w *yaml.Node)
		same = func(path string, a, w *yaml.Node) {
			if a.Kind != w.Kind || a.Style != w.Style || a.Tag != w.Tag || a.Value != w.Value || a.Line != w.Line || a.Column != w.Column || len(a.Content) != len(w.Content) {
				t.Fatalf("at %s read {kind %v style %v tag %s value %q at %d:%d, %d in it}; yaml.v3 {kind %v style %v tag %s value %q at %d:%d, %d in it}, of\n%q",
					path, a.Kind, a.Style, a.Tag, a.Value, a.Line, a.Column, len(a.Content), w.Kind, w.Style, w.Tag, w.Value, w.Line, w.Column, len(w.Content), b)
			}
			for i := range a.Content {
				same(fmt.Sprintf("%s/%d", path, i), a.Content[i], w.Content[i])
			}
		}
		same("", got, doc.Content[0])
	})
}
