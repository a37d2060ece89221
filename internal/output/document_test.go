package output

import (
	"bytes"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/internal/jsontest"

	"pgregory.net/rapid"
)

// jsonText are the strings of the values drawn: text that JSON escapes
// and YAML quotes, folds into blocks or escapes.
var jsonText = rapid.SampledFrom([]string{"", "P-1", "1000", "true", "null", "a: b", "- x", "#c", " lead", "trail ",
	"two\nlines", "gap\n\nline", "\n", "ü\u2028\t\"\\", "\x1b[31m", "~", "'q'", "a<b>&c"})

// TestDocumentIsSingleOfTheWhole holds Document, which writes the list an
// item at a time, to what Single writes for the whole document, in every
// format, filter and template; NDJSON is an item a line and then the rest.
func TestDocumentIsSingleOfTheWhole(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		head := rapid.MapOfN(rapid.SampledFrom([]string{"formatVersion", "summary", "a", "a2", "a10", "zz", "x<y"}), jsontest.Value(2, jsonText), 0, 3).Draw(t, "head")
		name := rapid.SampledFrom([]string{"changes", "a", "steps"}).Draw(t, "name")
		items := rapid.SliceOfN(jsontest.Value(2, jsonText), 0, 4).Draw(t, "items")
		opts := rapid.SampledFrom([]Options{{Format: "json"}, {Format: "yaml"}, {Format: "ndjson"}, {Format: "table"},
			{Format: "json", JQ: ".[\"" + name + "\"] | length"}, {Template: "{{len ." + name + "}}"}}).Draw(t, "options")

		whole := maps.Clone(head)
		whole[name] = append([]any{}, items...)
		head[name] = []any{}
		var want bytes.Buffer
		p, err := New(&want, opts)
		if err != nil {
			t.Fatal(err)
		}
		if opts.Format == "ndjson" && opts.JQ == "" {
			for _, item := range items {
				if err := p.Single(item); err != nil {
					t.Fatal(err)
				}
			}
			rest := maps.Clone(head)
			delete(rest, name)
			if err := p.Single(rest); err != nil {
				t.Fatal(err)
			}
		} else if err := p.Single(whole); err != nil {
			t.Fatal(err)
		}

		var got bytes.Buffer
		p, err = New(&got, opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Document(head, name, slices.Values(items)); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Fatalf("written:\n%s\nwhole:\n%s", got.String(), want.String())
		}
	})
}

// TestDocumentRefusesAHeadWithoutTheList: a misnamed member is an error in
// every format, before anything is written, not a document without its
// list.
func TestDocumentRefusesAHeadWithoutTheList(t *testing.T) {
	for _, format := range []string{"json", "yaml", "ndjson", "table"} {
		var out bytes.Buffer
		p, err := New(&out, Options{Format: format})
		if err != nil {
			t.Fatal(err)
		}
		err = p.Document(map[string]any{"other": 1}, "changes", slices.Values([]any{1}))
		if err == nil || !strings.Contains(err.Error(), "changes") || out.Len() > 0 {
			t.Errorf("-o %s: %v, want a refusal naming the member and nothing written, not %q", format, err, out.String())
		}
	}
}
