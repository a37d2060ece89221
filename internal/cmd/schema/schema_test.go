package schema_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/wbsctl/wbsctl/internal/cmd/schema"
	"github.com/wbsctl/wbsctl/sdk"
	"gopkg.in/yaml.v3"
)

// The schema states draft 2020-12 and the spec's limits, in JSON and in
// YAML alike.
func TestSchemaFormsAndLimits(t *testing.T) {
	var j, y bytes.Buffer
	if err := schema.Write(&j, false); err != nil {
		t.Fatal(err)
	}
	if err := schema.Write(&y, true); err != nil {
		t.Fatal(err)
	}
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
