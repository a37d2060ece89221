package erpmap

import (
	"testing"

	"github.com/wbsctl/wbsctl/internal/jsontest"
)

// The schema is a draft 2020-12 schema that takes the example maps and
// every map Parse takes below, and refuses the maps whose shape Parse
// refuses.
func TestSchemaHoldsTheMapsParseReads(t *testing.T) {
	schema := jsontest.Schema(t, Schema())
	valid := func(text string) error { return schema.YAML([]byte(text)) }
	good := []string{
		string(readFixture(t, "sap.wbsmap.yaml")), string(readFixture(t, "sap-en.wbsmap.yaml")), string(readFixture(t, "dynamics.wbsmap.yaml")),
		"version: 1\nwbsElementCode: A\nisActive: {expr: 'A == \"x\"'}\norganizations:\n  company: {value: \"1000\"}\n  plant: {expr: trim(W)}\n",
		"version: 1\nwbsElementCode: A\nisActive: Active\norganizations:\n",
	}
	for _, text := range good {
		if _, err := Parse("m.yaml", []byte(text)); err != nil {
			t.Errorf("Parse refuses\n%s%v", text, err)
		}
		if err := valid(text); err != nil {
			t.Errorf("the schema refuses\n%s%v", text, err)
		}
	}
	bad := []string{
		"version: 1\nwbsElementCode: A\ndescripton: B\n",
		"version: 2\nwbsElementCode: A\n",
		"version: 1\n",
		"version: 1\nheader: {find: [A], row: 2}\nwbsElementCode: A\n",
		"version: 1\nwbsElementCode: {column: A, expr: B}\n",
		"version: 1\nwbsElementCode: {expr: B, alpha: true}\n",
		"version: 1\nwbsElementCode: {value: B}\n",
		"version: 1\nwbsElementCode: A\nisActive: {column: S, words: true}\n",
		"version: 1\nwbsElementCode: A\nisActive: {column: S, map: {REL: yes}}\n",
		"version: 1\nwbsElementCode: A\norganizations: {plant: {column: W, alhpa: true}}\n",
	}
	for _, text := range bad {
		if _, err := Parse("m.yaml", []byte(text)); err == nil {
			t.Errorf("Parse takes\n%s", text)
		}
		if err := valid(text); err == nil {
			t.Errorf("the schema takes\n%s", text)
		}
	}
}
