package apply_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/wbsctl/wbsctl/internal/notation"
	"github.com/wbsctl/wbsctl/sdk"
	"github.com/xuri/excelize/v2"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
	"gopkg.in/yaml.v3"
	"pgregory.net/rapid"
)

// The model's files are written by this generator, not by the project's
// writers, so that a writer's bug cannot hide a reader's. It writes what
// users write: each format in each of its shapes, tables one row per
// element or one row per organization, repeated codes, codes that differ
// only in case or spaces, and records that are invalid in every way the
// readers refuse, some of which no reader can tell the code of.

// The shapes of each format.
var modelShapes = map[string][]string{
	// Tables: the delimiter and the encoding as ERP exports have them;
	// "windows-1252" is read with --encoding, "utf-16" is Excel's Unicode
	// text (TAB, a byte-order mark).
	"csv":    {"comma", "semicolon", "tab", "bom crlf", "windows-1252", "utf-16", "xlsx"},
	"json":   {"indented", "minified", "$schema"},
	"ndjson": {"lines"},
	"yaml":   {"block", "flow", "flow on one line", "comments"},
}

// writeFile writes a random file.
func (m *model) writeFile(rt *rapid.T) {
	format := rapid.SampledFrom([]string{"csv", "json", "ndjson", "yaml"}).Draw(rt, "format")
	f := &file{format: format, shape: rapid.SampledFrom(modelShapes[format]).Draw(rt, "shape")}
	table := format == "csv"
	codes := rapid.SliceOfNDistinct(rapid.SampledFrom(modelCodes), 1, len(modelCodes), rapid.ID[string]).Draw(rt, "codes")
	// A table states a field for every record or none; the other formats
	// record by record.
	descCol, activeCol, orgsCol := rapid.Bool().Draw(rt, "description column"), rapid.Bool().Draw(rt, "isActive column"), rapid.Bool().Draw(rt, "links column")
	perOrg := table && orgsCol && rapid.Bool().Draw(rt, "one row per organization")
	columns := 1 + btoi(descCol) + btoi(activeCol) + btoi(orgsCol)
	for _, code := range codes {
		r := record{code: code}
		stated := func(col bool, name string) bool {
			if table {
				return col
			}
			return rapid.Bool().Draw(rt, name)
		}
		if stated(descCol, "states description") {
			d := rapid.SampledFrom(modelDescs).Draw(rt, "description")
			// The platform's limits allow no control character.
			r.desc, r.invalid = &d, strings.ContainsRune(d, '\n')
		}
		if table && activeCol || !table && rapid.Bool().Draw(rt, "states isActive") {
			// An empty cell leaves the flag alone.
			if !table || rapid.Bool().Draw(rt, "isActive cell filled") {
				a := rapid.Bool().Draw(rt, "isActive")
				r.active = &a
			}
		}
		if stated(orgsCol, "states links") {
			r.orgsSet = true
			r.orgs = rapid.SliceOfDistinct(rapid.SampledFrom(modelOrgs), func(o sdk.BusinessOrganization) string { return notation.FormatOne(o) }).Draw(rt, "links")
		}
		if !r.invalid && rapid.IntRange(0, 4).Draw(rt, "invalid") == 0 {
			var ways []string
			if r.desc != nil {
				ways = append(ways, "too long")
			}
			if table && activeCol {
				ways = append(ways, "not a boolean")
			}
			if table && columns > 1 {
				ways = append(ways, "cells")
			}
			if !table {
				ways = append(ways, "unknown member", "code not a string")
			}
			if len(ways) > 0 {
				r.invalid, r.broken = true, rapid.SampledFrom(ways).Draw(rt, "invalid how")
				switch r.broken {
				case "too long":
					long := strings.Repeat("d", 101)
					r.desc = &long
				case "not a boolean":
					r.active = nil
				case "cells":
					// A workbook names the row's code in the problem of a
					// cell right of the header; a text row of another
					// number of cells cannot be split into columns.
					r.codeUnknown = f.shape != "xlsx"
				case "code not a string":
					r.codeUnknown = true
				}
			}
		}
		f.records = append(f.records, r)
	}
	// A second record of a code, which differs from the first: both are
	// left out.
	if (!table || descCol) && rapid.IntRange(0, 3).Draw(rt, "repeat a code") == 0 {
		first := rapid.SampledFrom(f.records).Draw(rt, "repeated record")
		if !first.codeUnknown {
			d := rapid.SampledFrom(slices.DeleteFunc(slices.Clone(modelDescs[:5]), func(d string) bool {
				return first.desc != nil && d == *first.desc
			})).Draw(rt, "repeated description")
			dup := record{code: first.code, desc: &d, invalid: true, broken: "repeated"}
			if table {
				dup.orgsSet, dup.orgs = orgsCol, nil
			}
			at := rapid.IntRange(0, len(f.records)).Draw(rt, "repeated at")
			f.records = slices.Insert(f.records, at, dup)
		}
	}
	m.nextFile++
	ext := map[string]string{"tab": "tsv", "utf-16": "txt", "xlsx": "xlsx"}[f.shape]
	if ext == "" {
		ext = format
	}
	f.path = filepath.Join(m.dir, fmt.Sprintf("file-%d.%s", m.nextFile, ext))
	if f.shape == "windows-1252" {
		f.args = []string{"--encoding", "windows-1252"}
	}
	var data []byte
	if table {
		data = encodeTable(rt, f.shape, tableRows(f.records, descCol, activeCol, orgsCol, perOrg))
	} else {
		data = encodeDocuments(rt, f)
	}
	if err := os.WriteFile(f.path, data, 0o600); err != nil {
		rt.Fatal(err)
	}
	m.file = f
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// tableRows are the header and rows of records, one row per organization
// when perOrg.
func tableRows(recs []record, descCol, activeCol, orgsCol, perOrg bool) [][]string {
	header := []string{"wbsElementCode"}
	for _, c := range []struct {
		on   bool
		name string
	}{{descCol, "description"}, {activeCol, "isActive"}, {orgsCol, "businessOrganizations"}} {
		if c.on {
			header = append(header, c.name)
		}
	}
	rows := [][]string{header}
	for _, r := range recs {
		row := []string{r.code}
		if descCol {
			row = append(row, *r.desc)
		}
		if activeCol {
			switch {
			case r.broken == "not a boolean":
				row = append(row, "maybe")
			case r.active == nil:
				row = append(row, "")
			default:
				row = append(row, strconv.FormatBool(*r.active))
			}
		}
		if r.broken == "cells" {
			row = append(row, "an extra cell")
		}
		if !orgsCol {
			rows = append(rows, row)
			continue
		}
		if !perOrg || len(r.orgs) < 2 {
			rows = append(rows, append(row, notation.Format(r.orgs)))
			continue
		}
		for _, o := range r.orgs {
			rows = append(rows, append(slices.Clone(row), notation.FormatOne(o)))
		}
	}
	return rows
}

// encodeTable writes rows as a table of shape.
func encodeTable(rt *rapid.T, shape string, rows [][]string) []byte {
	if shape == "xlsx" {
		wb := excelize.NewFile()
		defer wb.Close()
		for i, row := range rows {
			for j, cell := range row {
				name, _ := excelize.CoordinatesToCellName(j+1, i+1)
				var err error
				switch {
				case cell == "":
					continue // an empty cell, as a spreadsheet leaves it
				case i > 0 && (cell == "true" || cell == "false") && j < len(rows[0]) && rows[0][j] == "isActive":
					err = wb.SetCellBool("Sheet1", name, cell == "true")
				default:
					err = wb.SetCellStr("Sheet1", name, cell)
				}
				if err != nil {
					rt.Fatal(err)
				}
			}
		}
		var b bytes.Buffer
		if err := wb.Write(&b); err != nil {
			rt.Fatal(err)
		}
		return b.Bytes()
	}
	var b bytes.Buffer
	if shape == "bom crlf" {
		b.WriteString("\uFEFF")
	}
	w := csv.NewWriter(&b)
	w.Comma = map[string]rune{"semicolon": ';', "windows-1252": ';', "tab": '\t', "utf-16": '\t'}[shape]
	if w.Comma == 0 {
		w.Comma = ','
	}
	w.UseCRLF = shape == "bom crlf" || shape == "utf-16"
	if err := w.WriteAll(rows); err != nil {
		rt.Fatal(err)
	}
	var enc encoding.Encoding
	switch shape {
	case "windows-1252":
		enc = charmap.Windows1252
	case "utf-16":
		enc = unicode.UTF16(unicode.LittleEndian, unicode.UseBOM)
	default:
		return b.Bytes()
	}
	out, err := enc.NewEncoder().Bytes(b.Bytes())
	if err != nil {
		rt.Fatal(err)
	}
	return out
}

// member is one member of a record as the generator writes it.
type member struct {
	name  string
	value any
}

// members are the members of r, in the order a user writes them.
func members(r record) []member {
	var out []member
	if r.broken == "code not a string" {
		out = append(out, member{"wbsElementCode", []string{r.code}})
	} else {
		out = append(out, member{"wbsElementCode", r.code})
	}
	if r.desc != nil {
		out = append(out, member{"description", *r.desc})
	}
	if r.broken == "unknown member" {
		out = append(out, member{"descripton", "a typo"})
	}
	if r.active != nil {
		out = append(out, member{"isActive", *r.active})
	}
	if r.orgsSet {
		orgs := []any{}
		for _, o := range r.orgs {
			orgs = append(orgs, []member{{"code", o.Code}, {"entityType", o.EntityType}})
		}
		out = append(out, member{"businessOrganizations", orgs})
	}
	return out
}

// encodeDocuments writes the records of f as JSON, NDJSON or YAML of its
// shape.
func encodeDocuments(rt *rapid.T, f *file) []byte {
	var b bytes.Buffer
	switch f.shape {
	case "indented", "minified", "$schema":
		if f.shape == "$schema" {
			b.WriteString("{\n  \"$schema\": \"https://example.com/wbs-elements.schema.json\",\n  \"wbsElements\": ")
		}
		b.WriteString("[")
		for i, r := range f.records {
			if i > 0 {
				b.WriteString(",")
			}
			if f.shape != "minified" {
				b.WriteString("\n  ")
			}
			b.WriteString(flowValue(members(r), true))
		}
		if f.shape != "minified" {
			b.WriteString("\n")
		}
		b.WriteString("]")
		if f.shape == "$schema" {
			b.WriteString("\n}")
		}
		b.WriteString("\n")
	case "lines":
		for _, r := range f.records {
			b.WriteString(flowValue(members(r), true) + "\n")
		}
	case "flow", "flow on one line":
		b.WriteString("[")
		for i, r := range f.records {
			switch {
			case i == 0:
			case f.shape == "flow":
				b.WriteString(",\n ")
			default:
				b.WriteString(", ")
			}
			b.WriteString(flowValue(members(r), false))
		}
		b.WriteString("]\n")
	default: // block, comments
		var docs []*yaml.Node
		for _, r := range f.records {
			docs = append(docs, yamlNode(members(r)))
		}
		out, err := yaml.Marshal(&yaml.Node{Kind: yaml.SequenceNode, Content: docs})
		if err != nil {
			rt.Fatal(err)
		}
		if f.shape == "block" {
			return out
		}
		b.WriteString("# WBS elements\n\n")
		for line := range strings.Lines(string(out)) {
			if strings.HasPrefix(line, "- ") {
				b.WriteString("# the next element\n")
			}
			b.WriteString(line)
		}
	}
	return b.Bytes()
}

// flowValue writes v as JSON, or, with json false, as a YAML flow
// collection with plain keys.
func flowValue(v any, json bool) string {
	switch v := v.(type) {
	case []member:
		parts := make([]string, len(v))
		for i, m := range v {
			name := m.name
			if json {
				name = quote(name)
			}
			parts[i] = name + ": " + flowValue(m.value, json)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = flowValue(e, json)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case []string:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = quote(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case string:
		return quote(v)
	case bool:
		return strconv.FormatBool(v)
	}
	panic(fmt.Sprintf("flowValue: %T", v))
}

// quote writes s as a JSON string, which is a YAML double-quoted scalar
// too.
func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// yamlNode is v as a YAML node for a block document.
func yamlNode(v any) *yaml.Node {
	switch v := v.(type) {
	case []member:
		n := &yaml.Node{Kind: yaml.MappingNode}
		for _, m := range v {
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: m.name}, yamlNode(m.value))
		}
		return n
	case []any:
		n := &yaml.Node{Kind: yaml.SequenceNode}
		for _, e := range v {
			n.Content = append(n.Content, yamlNode(e))
		}
		return n
	case []string:
		n := &yaml.Node{Kind: yaml.SequenceNode}
		for _, e := range v {
			n.Content = append(n.Content, yamlNode(e))
		}
		return n
	case string:
		// A string that reads as another type is quoted.
		n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v}
		return n
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(v)}
	}
	panic(fmt.Sprintf("yamlNode: %T", v))
}
