package schema_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/internal/cmd/cmdtest"
	"github.com/wbsctl/wbsctl/sdk"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
	"gopkg.in/yaml.v3"
)

// The schema states draft 2020-12 and the spec's limits, in JSON and in
// YAML alike.
func TestSchemaFormsAndLimits(t *testing.T) {
	var j, y bytes.Buffer
	j.Write(printed(t))
	y.Write(printed(t, "-o", "yaml"))
	var fromJSON, fromYAML any
	if err := json.Unmarshal(j.Bytes(), &fromJSON); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(y.Bytes(), &fromYAML); err != nil {
		t.Fatal(err)
	}
	// YAML reads numbers as int, JSON as float64: compare through JSON.
	again, _ := json.Marshal(fromYAML)
	var fromYAMLJSON any
	json.Unmarshal(again, &fromYAMLJSON)
	if !reflect.DeepEqual(fromJSON, fromYAMLJSON) {
		t.Fatalf("the YAML form differs:\n%s\n%s", j.String(), y.String())
	}
	s := fromJSON.(map[string]any)
	if s["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
		t.Fatalf("%v", s["$schema"])
	}
	at := func(path ...string) any {
		var v any = s
		for _, p := range path {
			v = v.(map[string]any)[p]
		}
		return v
	}
	for _, tt := range []struct {
		path []string
		want any
	}{
		{[]string{"$defs", "wbsElement", "properties", "wbsElementCode", "minLength"}, float64(sdk.MinCodeLength)},
		{[]string{"$defs", "wbsElement", "properties", "wbsElementCode", "maxLength"}, float64(sdk.MaxCodeLength)},
		{[]string{"$defs", "wbsElement", "properties", "description", "maxLength"}, float64(sdk.MaxDescriptionLength)},
		{[]string{"$defs", "wbsElement", "additionalProperties"}, false},
		{[]string{"$defs", "businessOrganization", "properties", "code", "minLength"}, float64(1)},
		{[]string{"$defs", "businessOrganization", "properties", "entityType", "minLength"}, float64(1)},
		{[]string{"$defs", "businessOrganization", "additionalProperties"}, false},
		{[]string{"$defs", "wbsElements", "items", "$ref"}, "#/$defs/wbsElement"},
		{[]string{"$defs", "wbsElements", "type"}, "array"},
	} {
		if got := at(tt.path...); got != tt.want {
			t.Errorf("%v: %v, want %v", tt.path, got, tt.want)
		}
	}
	if got := at("$defs", "businessOrganization", "required"); !reflect.DeepEqual(got, []any{"code", "entityType"}) {
		t.Errorf("required %v", got)
	}
}

// printed is what `wbsctl schema ARGS...` prints.
func printed(t *testing.T, args ...string) []byte {
	t.Helper()
	srv := wbstest.Start(t)
	res := cmdtest.Run{}.Do(t, srv, append([]string{"schema"}, args...)...)
	if res.Code != 0 {
		t.Fatalf("wbsctl schema %v: exit %d: %s", args, res.Code, res.ErrOut)
	}
	return []byte(res.Out)
}

// -o, --jq and --template mean for the schema what they mean for every
// command's output.
func TestSchemaTakesTheOutputFlags(t *testing.T) {
	if got := string(printed(t, "--jq", `."$defs".wbsElement.required[0]`)); got != "wbsElementCode\n" {
		t.Fatalf("--jq printed %q", got)
	}
	if got := string(printed(t, "-o", "ndjson")); strings.Count(got, "\n") != 1 || !strings.HasPrefix(got, `{"$defs":`) {
		t.Fatalf("-o ndjson printed %.80q…", got)
	}
}
