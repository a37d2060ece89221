package jsontest

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"
)

// Schema compiles the JSON Schema text as a validator reads it, which
// checks it against its draft's meta-schema; a schema that does not
// compile fails the test.
func Schema(t testing.TB, text []byte) *Validator {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return &Validator{t: t, Schema: s}
}

// Validator is a compiled schema, with the documents of a test to hold
// to it.
type Validator struct {
	t testing.TB
	*jsonschema.Schema
}

// YAML holds the YAML document text to the schema, as an editor does:
// read as YAML, checked as the JSON it reads as. Text that is no YAML
// fails the test.
func (v *Validator) YAML(text []byte) error {
	v.t.Helper()
	var doc any
	if err := yaml.Unmarshal(text, &doc); err != nil {
		v.t.Fatal(err)
	}
	data, err := json.Marshal(doc)
	if err != nil {
		v.t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		v.t.Fatal(err)
	}
	return v.Validate(inst)
}
