package erpmap

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/wbsctl/wbsctl/internal/wbsfile"
)

// Schema is the JSON Schema (draft 2020-12) of a map file, for editors
// and `wbsctl schema --map`. It holds what a schema can say: the keys and
// the forms of their values; the expressions and the columns are checked
// by Parse and Read.
func Schema() []byte {
	column := map[string]any{"description": "a column's name, as the header shows it", "type": "string", "minLength": 1}
	expr := map[string]any{"description": "an expression of expr-lang (https://expr-lang.org) of the row's cells, each a column of text, $env[\"PSP-Element\"] where an identifier cannot spell the name; functions: " + functionNames(), "type": "string", "minLength": 1}
	text := func(what string, value bool) map[string]any {
		props := map[string]any{
			"column": column,
			"alpha":  map[string]any{"description": "digits without their leading zeros, as SAP's ALPHA conversion shows them (0000004711 is 4711)", "type": "boolean"},
			"expr":   expr,
		}
		forms := []any{
			map[string]any{"required": []string{"column"}},
			map[string]any{"required": []string{"expr"}, "not": map[string]any{"required": []string{"alpha"}}},
		}
		if value {
			props["value"] = map[string]any{"description": "the same text for every row", "type": "string"}
			forms = append(forms, map[string]any{"required": []string{"value"}, "not": map[string]any{"required": []string{"alpha"}}})
		}
		return map[string]any{
			"description": what,
			"oneOf": []any{
				column,
				map[string]any{"type": "object", "additionalProperties": false, "properties": props, "minProperties": 1, "oneOf": forms},
			},
		}
	}
	schema := map[string]any{
		"$schema":              "https://json-schema.org/draft/2020-12/schema",
		"title":                "wbsctl map file",
		"description":          "How the columns of an ERP's export become WBS elements: wbsctl apply --map, wbsctl map check.",
		"type":                 "object",
		"additionalProperties": false,
		"required":             []string{"version", "wbsElementCode"},
		"properties": map[string]any{
			"version": map[string]any{"const": 1},
			"header": map[string]any{
				"description": "the row that names the columns: the first of the first 50 holding every name of find, or the row row; row 1 when left out",
				"type":        "object", "additionalProperties": false, "minProperties": 1, "maxProperties": 1,
				"properties": map[string]any{
					"find": map[string]any{"type": "array", "minItems": 1, "uniqueItems": true, "items": column},
					"row":  map[string]any{"type": "integer", "minimum": 1, "maximum": maxHeaderRow},
				},
			},
			"where":          map[string]any{"description": "the rows to keep, a boolean expression; the others are counted, not read", "type": "string", "minLength": 1},
			"wbsElementCode": text("the element's code", false),
			"isActive": map[string]any{
				"description": "whether the element is active; left out, apply keeps each element's flag",
				"oneOf": []any{
					column,
					map[string]any{"type": "object", "additionalProperties": false, "required": []string{"expr"},
						"properties": map[string]any{"expr": expr}},
					map[string]any{"type": "object", "additionalProperties": false, "required": []string{"column"},
						"properties": map[string]any{
							"column": column,
							"words":  map[string]any{"description": "the cell holds several statuses between spaces (REL  AUC  SETC)", "type": "boolean"},
							"map": map[string]any{"description": "each status and what it means; the first listed that the cell holds wins",
								"type": "object", "minProperties": 1, "additionalProperties": map[string]any{"type": "boolean"}},
							"else": map[string]any{"description": "what a cell no entry matches gives", "enum": []any{"error", true, false}},
						},
						"dependentRequired": map[string]any{"words": []string{"map"}, "else": []string{"map"}}},
				},
			},
			"organizations": map[string]any{
				"description":          "an entity type and its column, for each type the export states: the map owns these types; links of other types are left alone. An empty cell: no link of that type",
				"type":                 []string{"object", "null"},
				"propertyNames":        map[string]any{"minLength": 1, "pattern": `^\S(.*\S)?$`},
				"additionalProperties": text("the organization's code", true),
			},
		},
	}
	props := schema["properties"].(map[string]any)
	for _, f := range wbsfile.TextFields {
		props[f.Name] = text(f.Usage+": an empty cell clears it; left out, apply keeps each element's", true)
	}
	out, err := json.MarshalIndent(schema, "", "  ")
	if err != nil {
		// The schema is built of maps, lists and texts above: it always
		// marshals.
		return []byte(fmt.Sprintf(`{"error": %q}`, err.Error()))
	}
	return append(out, '\n')
}

// Functions describes the functions of expressions, a line each, for
// help texts: this package's and the builtins of expr-lang that maps
// use most.
func Functions() string {
	type line struct{ name, doc string }
	lines := []line{
		{"trim", "the text without the spaces around it (expr-lang)"},
		{"upper", "the text in upper case (expr-lang)"},
		{"lower", "the text in lower case (expr-lang)"},
		{"replace", "replace(s, old, new): s with every old replaced by new (expr-lang)"},
	}
	for _, f := range functions {
		lines = append(lines, line{f.name, f.doc})
	}
	slices.SortFunc(lines, func(a, b line) int { return strings.Compare(a.name, b.name) })
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = fmt.Sprintf("  %-11s %s", l.name, l.doc)
	}
	return strings.Join(out, "\n") + `
and expr-lang's other builtins and operators (https://expr-lang.org):
s contains part, s startsWith prefix, s endsWith suffix, s matches
regexp, split, trimPrefix, … A column whose name an identifier cannot
spell is $env["PSP-Element"].`
}
