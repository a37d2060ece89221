package engine

import (
	"reflect"
	"testing"

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
