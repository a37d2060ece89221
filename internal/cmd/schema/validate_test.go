package schema_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/wbsctl/wbsctl/internal/jsontest"
	"github.com/wbsctl/wbsctl/internal/wbsfile"
	"gopkg.in/yaml.v3"
)

// compiled is the schema as a JSON Schema validator reads it: compiling
// checks it against the draft 2020-12 meta-schema.
func compiled(t *testing.T) *jsonschema.Schema {
	t.Helper()
	return jsontest.Schema(t, printed(t)).Schema
}

// instance reads a JSON or YAML file as the validator takes it.
func instance(t *testing.T, name string, data []byte) any {
	t.Helper()
	if strings.HasSuffix(name, ".yaml") {
		var v any
		if err := yaml.Unmarshal(data, &v); err != nil {
			t.Fatal(err)
		}
		data, _ = json.Marshal(v)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return v
}

// The schema in examples/ is the one wbsctl schema prints, so that an
// editor pointed at it checks what apply checks.
func TestExampleSchemaIsCurrent(t *testing.T) {
	var buf bytes.Buffer
	buf.Write(printed(t))
	saved, err := os.ReadFile("../../../examples/wbs-elements.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(saved, buf.Bytes()) {
		t.Fatal("examples/wbs-elements.schema.json differs from `wbsctl schema`: go run ./cmd/wbsctl schema > examples/wbs-elements.schema.json")
	}
}

// The repo's JSON and YAML apply files, examples and test data, validate.
func TestExampleFilesValidate(t *testing.T) {
	s := compiled(t)
	var files []string
	for _, pattern := range []string{"../../../examples/*.json", "../../../examples/*.yaml", "../../wbsfile/testdata/good/*.json", "../../wbsfile/testdata/good/*.yaml"} {
		m, _ := filepath.Glob(pattern)
		files = append(files, m...)
	}
	n := 0
	for _, name := range files {
		if strings.HasSuffix(name, ".schema.json") {
			continue
		}
		n++
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(instance(t, name, data)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if n < 4 {
		t.Fatalf("validated %d files, want the examples' and the test data's", n)
	}
}

// The schema and apply agree on every limit: a file the schema refuses,
// apply refuses, and the other way round.
func TestSchemaAgreesWithApply(t *testing.T) {
	s := compiled(t)
	for _, tt := range []struct {
		name, file string
		valid      bool
	}{
		{"the smallest", `[{"wbsElementCode": "A"}]`, true},
		{"code of 30", `[{"wbsElementCode": "` + strings.Repeat("C", 30) + `"}]`, true},
		{"code of 31", `[{"wbsElementCode": "` + strings.Repeat("C", 31) + `"}]`, false},
		{"empty code", `[{"wbsElementCode": ""}]`, false},
		{"no code", `[{"description": "x"}]`, false},
		{"code not a string", `[{"wbsElementCode": 1000}]`, false},
		{"description of 100 umlauts", `[{"wbsElementCode": "A", "description": "` + strings.Repeat("ä", 100) + `"}]`, true},
		{"description of 101", `[{"wbsElementCode": "A", "description": "` + strings.Repeat("d", 101) + `"}]`, false},
		{"description null", `[{"wbsElementCode": "A", "description": null}]`, true},
		{"control character", `[{"wbsElementCode": "A", "description": "a\u001bb"}]`, false},
		{"unknown member", `[{"wbsElementCode": "A", "colour": "red"}]`, false},
		{"organizations", `[{"wbsElementCode": "A", "businessOrganizations": [{"code": "1000", "entityType": "company"}]}]`, true},
		{"no links", `[{"wbsElementCode": "A", "businessOrganizations": []}]`, true},
		{"organization without type", `[{"wbsElementCode": "A", "businessOrganizations": [{"code": "1000"}]}]`, false},
		{"organization of empty code", `[{"wbsElementCode": "A", "businessOrganizations": [{"code": "", "entityType": "company"}]}]`, false},
		{"isActive a string", `[{"wbsElementCode": "A", "isActive": "yes"}]`, false},
		{"object form", `{"$schema": "x.json", "wbsElements": [{"wbsElementCode": "A"}]}`, true},
		{"object form without elements", `{"$schema": "x.json"}`, false},
		{"object form, other member", `{"wbsElements": [], "elements": []}`, false},
		// YAML's scalars as YAML 1.2, the schema and an editor read them.
		{"yaml: isActive true", "- wbsElementCode: A\n  isActive: true\n", true},
		{"yaml: isActive True", "- wbsElementCode: A\n  isActive: True\n", true},
		{"yaml: isActive null", "- wbsElementCode: A\n  isActive: null\n", true},
		{"yaml: isActive ~", "- wbsElementCode: A\n  isActive: ~\n", true},
		{"yaml: isActive quoted yes", "- wbsElementCode: A\n  isActive: \"yes\"\n", false},
		{"yaml: isActive quoted off", "- wbsElementCode: A\n  isActive: 'off'\n", false},
		{"yaml: isActive plain yes", "- wbsElementCode: A\n  isActive: yes\n", false},
		{"yaml: isActive plain on", "- wbsElementCode: A\n  isActive: on\n", false},
		{"yaml: isActive quoted true", "[{wbsElementCode: A, isActive: \"true\"}]\n", false},
		{"yaml: isActive a number", "- wbsElementCode: A\n  isActive: 1\n", false},
		{"yaml: description null", "- wbsElementCode: A\n  description: null\n", true},
		{"yaml: description empty", "- wbsElementCode: A\n  description: ''\n", true},
		{"yaml: description plain text", "- wbsElementCode: A\n  description: Site works\n", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			name, format := "case.json", wbsfile.FormatJSON
			if strings.HasPrefix(tt.name, "yaml:") {
				name, format = "case.yaml", wbsfile.FormatYAML
			}
			err := s.Validate(instance(t, name, []byte(tt.file)))
			if (err == nil) != tt.valid {
				t.Errorf("schema: valid %v, want %v (%v)", err == nil, tt.valid, err)
			}
			f, perr := wbsfile.Parse(strings.NewReader(tt.file), format)
			if perr != nil {
				t.Fatal(perr)
			}
			if (len(f.Problems) == 0) != tt.valid {
				t.Errorf("apply: valid %v, want %v (%v)", len(f.Problems) == 0, tt.valid, f.Problems)
			}
		})
	}
}
