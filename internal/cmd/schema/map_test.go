package schema_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/wbsctl/wbsctl/internal/jsontest"
	"gopkg.in/yaml.v3"
)

// schema --map prints the schema of a column map, as JSON or YAML alike,
// and an editor given it takes the example maps and flags a misspelled
// key.
func TestSchemaOfAMap(t *testing.T) {
	var fromJSON, fromYAML any
	if err := json.Unmarshal(printed(t, "--map"), &fromJSON); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(printed(t, "--map", "-o", "yaml"), &fromYAML); err != nil {
		t.Fatal(err)
	}
	again, _ := json.Marshal(fromYAML)
	var fromYAMLJSON any
	json.Unmarshal(again, &fromYAMLJSON)
	if !reflect.DeepEqual(fromJSON, fromYAMLJSON) {
		t.Fatal("the YAML form differs from the JSON form")
	}
	if fromJSON.(map[string]any)["title"] == printedTitle(t) {
		t.Fatal("schema --map printed the apply file's schema")
	}
	check := jsontest.Schema(t, printed(t, "--map")).YAML
	maps, _ := filepath.Glob(filepath.Join("..", "..", "..", "examples", "erp", "*.wbsmap.yaml"))
	if len(maps) < 3 {
		t.Fatalf("the example maps: %v", maps)
	}
	for _, m := range maps {
		text, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		if err := check(text); err != nil {
			t.Errorf("%s: %v", m, err)
		}
		if err := check(bytes.Replace(text, []byte("wbsElementCode:"), []byte("wbsElementCod:"), 1)); err == nil {
			t.Errorf("%s with wbsElementCod: taken", m)
		}
	}
}

// printedTitle is the title of the apply file's schema.
func printedTitle(t *testing.T) any {
	var s map[string]any
	json.Unmarshal(printed(t), &s)
	return s["title"]
}
