package jsondoc

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/internal/jsontest"

	"pgregory.net/rapid"
)

// jsonText are the strings of the values drawn: text that JSON escapes.
var jsonText = rapid.SampledFrom([]string{"", "a", "x<y>&z", "\u2028\u2029", "\"\\/", "\t\n", "é\U0001F600", "\x1b[31m", "changes"})

// encoded is what a json.Encoder writes for v.
func encoded(t *rapid.T, indent string, v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", indent)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestWriteIsTheDocumentEncoded holds Write, which writes the list an item
// at a time, to the bytes of the whole document encoded at once, indented
// and on one line, and with the list left out.
func TestWriteIsTheDocumentEncoded(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		head := rapid.MapOfN(rapid.SampledFrom([]string{"a", "formatVersion", "summary", "z", "x<y"}), jsontest.Value(2, jsonText), 0, 4).Draw(t, "head")
		name := rapid.SampledFrom([]string{"changes", "a", "steps"}).Draw(t, "name")
		items := rapid.SliceOfN(jsontest.Value(2, jsonText), 0, 4).Draw(t, "items")
		indent := rapid.SampledFrom([]string{"", "  "}).Draw(t, "indent")

		whole := maps.Clone(head)
		whole[name] = items
		if items == nil {
			whole[name] = []any{}
		}
		head[name] = []any{}
		var got bytes.Buffer
		if err := Write(&got, indent, head, name, slices.Values(items)); err != nil {
			t.Fatal(err)
		}
		if want := encoded(t, indent, whole); got.String() != want {
			t.Fatalf("written:\n%s\nencoded whole:\n%s", got.String(), want)
		}

		rest := maps.Clone(head)
		delete(rest, name)
		got.Reset()
		if err := Write[any](&got, indent, head, name, nil); err != nil {
			t.Fatal(err)
		}
		if want := encoded(t, indent, rest); got.String() != want {
			t.Fatalf("written without the list:\n%s\nencoded:\n%s", got.String(), want)
		}
	})
}

// TestWriteKeepsTheOrderOfAStruct: the members of a struct come in their
// order, the list in its place among them.
func TestWriteKeepsTheOrderOfAStruct(t *testing.T) {
	head := struct {
		Version int   `json:"formatVersion"`
		Steps   []int `json:"steps"`
		Prune   bool  `json:"prune"`
	}{Version: 2, Steps: []int{}}
	var got bytes.Buffer
	if err := Write(&got, "  ", head, "steps", slices.Values([]int{1, 2})); err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"formatVersion\": 2,\n  \"steps\": [\n    1,\n    2\n  ],\n  \"prune\": false\n}\n"
	if got.String() != want {
		t.Fatalf("got %q, want %q", got.String(), want)
	}
}

// TestWriteRefusesAHeadWithoutTheMember: a misnamed member is an error
// before anything is written, not a document without its list.
func TestWriteRefusesAHeadWithoutTheMember(t *testing.T) {
	for _, head := range []any{map[string]any{"other": 1}, []int{}, "text"} {
		var out bytes.Buffer
		err := Write(&out, "  ", head, "steps", slices.Values([]int{1}))
		if err == nil || !strings.Contains(err.Error(), "steps") && !strings.Contains(err.Error(), "not a JSON object") || out.Len() > 0 {
			t.Errorf("%#v: %v, want a refusal and nothing written, not %q", head, err, out.String())
		}
	}
}
