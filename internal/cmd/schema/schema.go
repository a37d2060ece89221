// Package schema is `wbsctl schema`: the JSON Schema of the files wbsctl
// apply reads, for editors that check and complete what is typed.
package schema

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/erpmap"
	"github.com/wbsctl/wbsctl/internal/wbsfile"
	"github.com/wbsctl/wbsctl/sdk"
)

// Draft is the JSON Schema dialect of the schema.
const Draft = "https://json-schema.org/draft/2020-12/schema"

// noControl is the pattern of text without control characters (Unicode's
// Cc: C0, DEL and C1), which apply refuses in what it sends.
const noControl = `^\P{Cc}*$`

// ApplyFile is the JSON Schema of an apply file in JSON or YAML: a list of
// WBS elements with the spec's limits (section 8), or an object of that
// list (wbsElements) and $schema, the form in which a file names its
// schema. A line of NDJSON is one
// item, #/$defs/wbsElement. Lengths count characters (code points), as
// JSON Schema and apply both do.
func ApplyFile() map[string]any {
	return map[string]any{
		"$schema":     Draft,
		"title":       "wbsctl apply file",
		"description": "WBS elements for wbsctl apply: a field left out is left as the platform has it; a field given is made so.",
		"oneOf": []any{
			map[string]any{"$ref": "#/$defs/wbsElements"},
			namingObject(),
		},
		"$defs": map[string]any{
			"wbsElements": map[string]any{
				"type":  "array",
				"items": map[string]any{"$ref": "#/$defs/wbsElement"},
			},
			"wbsElement":           wbsElement(),
			"businessOrganization": businessOrganization(),
		},
	}
}

// namingObject is the object form of the file: the list under
// wbsElements, beside the $schema that names the schema for an editor.
func namingObject() map[string]any {
	return map[string]any{
		"description":          "the same list, in an object that names its schema for an editor",
		"type":                 "object",
		"additionalProperties": false,
		"required":             []string{"wbsElements"},
		"properties": map[string]any{
			"$schema":     map[string]any{"description": "the address of this schema", "type": "string"},
			"wbsElements": map[string]any{"$ref": "#/$defs/wbsElements"},
		},
	}
}

// wbsElement is #/$defs/wbsElement: one element, its code required.
func wbsElement() map[string]any {
	props := map[string]any{
		"wbsElementCode": map[string]any{
			"description": "the element's code",
			"type":        "string",
			"minLength":   sdk.MinCodeLength,
			"maxLength":   sdk.MaxCodeLength,
			"pattern":     noControl,
		},
		"isActive": map[string]any{
			"description": "whether the element is active; a new element is active unless false",
			"type":        []string{"boolean", "null"},
		},
		"businessOrganizations": map[string]any{
			"description": "every link of the element: [] removes them all, null leaves them as they are",
			"type":        []string{"array", "null"},
			"items":       map[string]any{"$ref": "#/$defs/businessOrganization"},
		},
	}
	for _, f := range wbsfile.TextFields {
		props[f.Name] = map[string]any{
			"description": fmt.Sprintf("%s, at most %d characters: an empty string clears it; null, or no %s, leaves it as it is", f.Usage, f.Max, f.Name),
			"type":        []string{"string", "null"},
			"maxLength":   f.Max,
			"pattern":     noControl,
		}
	}
	return map[string]any{
		"type":                 "object",
		"additionalProperties": false,
		"required":             []string{"wbsElementCode"},
		"properties":           props,
	}
}

// businessOrganization is #/$defs/businessOrganization: one link of an
// element, its code and entityType both required.
func businessOrganization() map[string]any {
	return map[string]any{
		"type":                 "object",
		"additionalProperties": false,
		"required":             []string{"code", "entityType"},
		"properties": map[string]any{
			"code": map[string]any{
				"description": "the organization's code in the ERP",
				"type":        "string",
				"minLength":   sdk.MinOrganizationFieldLength,
				"pattern":     noControl,
			},
			"entityType": map[string]any{
				"description": "the kind of organizational structure, such as company, branch or department",
				"type":        "string",
				"minLength":   sdk.MinOrganizationFieldLength,
				"pattern":     noControl,
			},
		},
	}
}

// Options are the inputs of `wbsctl schema`.
type Options struct {
	cmdutil.Deps
	// Map prints the schema of a column map file (internal/erpmap)
	// instead of an apply file's.
	Map bool
}

// NewCmdSchema returns `wbsctl schema`.
func NewCmdSchema(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{Deps: f.Deps()}
	cmd := &cobra.Command{
		Use:   "schema",
		Short: "Print the JSON Schema of the files apply reads, for editors",
		Long: `Print the JSON Schema (draft 2020-12) of the JSON and YAML files wbsctl
apply reads: a list of WBS elements, each with wbsElementCode (1 to 30
characters), ` + textLimits() + `, isActive, and
businessOrganizations as objects of code and entityType. A line of NDJSON
is one item: #/$defs/wbsElement. It is printed as JSON, or as YAML with
-o yaml; --jq and --template read it as every command's output.

Save it and point an editor at it. A JSON file names it in the object
form apply also reads:
  {"$schema": "./wbs-elements.schema.json", "wbsElements": [ ... ]}
a YAML file in a first line
  # yaml-language-server: $schema=./wbs-elements.schema.json
and VS Code maps file names to it with "json.schemas" and "yaml.schemas"
in settings.json (see docs/files.md).

With --map, the schema is a column map's (wbsctl map init writes one, and
apply --map reads it): its keys and the forms of their values. Columns
and expressions are checked against an export by wbsctl map check.`,
		Example: `  wbsctl schema > wbs-elements.schema.json
  wbsctl schema -o yaml > wbs-elements.schema.yaml
  wbsctl schema --map > wbsmap.schema.json`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmdutil.Pick(runF, runSchema)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Map, "map", false, "print the schema of a column map file (apply --map, wbsctl map) instead")
	return f.AddOutputFlags(cmd, cmdutil.DocumentFormats...)
}

func runSchema(_ context.Context, o *Options) error {
	p, err := o.Printer()
	if err != nil {
		return err
	}
	if !o.Map {
		return p.Single(ApplyFile())
	}
	var schema any
	if err := json.Unmarshal(erpmap.Schema(), &schema); err != nil {
		return err
	}
	return p.Single(schema)
}

// textLimits names the text fields and their limits for the help:
// "description (at most 100)".
func textLimits() string {
	var parts []string
	for _, f := range wbsfile.TextFields {
		parts = append(parts, fmt.Sprintf("%s (at most %d)", f.Name, f.Max))
	}
	return strings.Join(parts, ", ")
}
