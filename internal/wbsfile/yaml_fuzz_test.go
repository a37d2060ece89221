package wbsfile

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

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
