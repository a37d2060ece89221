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
