// Package output writes command results as tables, JSON, YAML, CSV or
// NDJSON, filtered by a jq expression or a Go template. It knows nothing of
// HTTP: commands hand it values and the cells of their table rows.
package output

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/template"

	"github.com/itchyny/gojq"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
	"gopkg.in/yaml.v3"
)

// Format is an output format.
type Format string

// The formats of -o. Plain is the default on a pipe: tab-separated rows
// without borders.
const (
	Table  Format = "table"
	Plain  Format = "plain"
	JSON   Format = "json"
	YAML   Format = "yaml"
	CSV    Format = "csv"
	NDJSON Format = "ndjson"
)

// Options choose how a Printer writes.
type Options struct {
	// Format is the -o value; empty picks Table on a terminal, else Plain.
	Format    string
	NoHeaders bool
	// JQ filters the JSON form of the output (github.com/itchyny/gojq).
	JQ string
	// Template renders the JSON form of the output with text/template.
	Template string
	// Terminal is whether the output goes to a terminal: the default
	// format is then a table, and every character a terminal would act
	// on is escaped (TerminalWriter).
	Terminal bool
}

// Printer writes a list of items. CSV, NDJSON, Plain, JSON and YAML
// (without --jq or --template) are written as items are added, so that long
// listings start at once and take no memory; the other forms need the
// whole list. Streamed output is buffered and passed on at least every
// 100 ms; Flush ends the output, Sync passes on what is buffered without
// ending it (after an error, say).
type Printer struct {
	w       *streamWriter
	format  Format
	opts    Options
	columns []string
	query   *gojq.Code
	tmpl    *template.Template

	started bool
	// items holds the JSON form of what Add kept for a table, jq or
	// a template, rows their table cells.
	items []any
	rows  [][]string
	csv   *csv.Writer
}

// New returns a Printer for items whose table rows have the given columns.
func New(w io.Writer, opts Options, columns ...string) (*Printer, error) {
	if opts.Terminal {
		w = TerminalWriter(w)
	}
	p := &Printer{w: newStreamWriter(w), opts: opts, columns: columns}
	switch f := Format(strings.ToLower(opts.Format)); f {
	case "":
		p.format = Plain
		if opts.Terminal {
			p.format = Table
		}
	case Table, Plain, JSON, YAML, CSV, NDJSON:
		p.format = f
	default:
		return nil, fmt.Errorf("unknown output format %q: use table, json, yaml, csv or ndjson", opts.Format)
	}
	if opts.JQ != "" && opts.Template != "" {
		return nil, fmt.Errorf("--jq and --template cannot be used together")
	}
	if opts.JQ != "" {
		q, err := gojq.Parse(opts.JQ)
		if err != nil {
			return nil, fmt.Errorf("--jq: %w", err)
		}
		if p.query, err = gojq.Compile(q); err != nil {
			return nil, fmt.Errorf("--jq: %w", err)
		}
	}
	if opts.Template != "" {
		t, err := template.New("output").Option("missingkey=zero").Parse(opts.Template)
		if err != nil {
			return nil, fmt.Errorf("--template: %w", err)
		}
		p.tmpl = t
	}
	return p, nil
}

// Add writes or keeps one item: v is its value (written in its JSON form),
// row its table cells in the order of the columns.
func (p *Printer) Add(v any, row ...string) error {
	if p.query == nil && p.tmpl == nil {
		switch p.format {
		case NDJSON:
			return json.NewEncoder(p.w).Encode(v)
		case CSV, Plain:
			return p.streamRow(row)
		case JSON:
			return p.streamJSON(v)
		case YAML:
			return p.streamYAML(v)
		}
	}
	generic, err := Generic(v)
	if err != nil {
		return err
	}
	p.items = append(p.items, generic)
	p.rows = append(p.rows, row)
	return nil
}

// streamJSON writes v as the next item of an indented JSON array, the
// same bytes as an encoder with a two-space indent writes for the whole
// list.
func (p *Printer) streamJSON(v any) error {
	b, err := json.MarshalIndent(v, "  ", "  ")
	if err != nil {
		return err
	}
	sep := ",\n  "
	if !p.started {
		sep = "[\n  "
		p.started = true
	}
	if _, err := io.WriteString(p.w, sep); err != nil {
		return err
	}
	_, err = p.w.Write(b)
	return err
}

// streamYAML writes v as the next item of a YAML list, so that a long
// list is never held: yaml.v3 builds a tree of all it encodes.
func (p *Printer) streamYAML(v any) error {
	b, err := YAMLItem(v)
	if err != nil {
		return err
	}
	p.started = true
	_, err = p.w.Write(b)
	return err
}

// YAMLItem is the YAML of v's JSON form as an item of a top-level list: a
// list of it alone, which is the same bytes as the item in the encoding
// of the whole list.
func YAMLItem(v any) ([]byte, error) {
	generic, err := Generic(v)
	if err != nil {
		return nil, err
	}
	return yaml.Marshal([]any{generic})
}

// Sync passes on what is buffered, without ending the output: what was
// listed before an error still reaches the reader.
func (p *Printer) Sync() error { return p.w.Flush() }

func (p *Printer) streamRow(row []string) error {
	if p.format == CSV {
		if p.csv == nil {
			p.csv = csv.NewWriter(p.w)
			if !p.opts.NoHeaders {
				_ = p.csv.Write(p.columns)
			}
		}
		if row != nil { // nil: an empty list, the header alone
			_ = p.csv.Write(row)
		}
		p.csv.Flush()
		return p.csv.Error()
	}
	if !p.started && !p.opts.NoHeaders {
		if _, err := fmt.Fprintln(p.w, strings.Join(p.columns, "\t")); err != nil {
			return err
		}
	}
	p.started = true
	if row == nil {
		return nil // an empty list: the header alone
	}
	_, err := fmt.Fprintln(p.w, strings.Join(escapeRow(row), "\t"))
	return err
}

func escapeRow(row []string) []string {
	out := make([]string, len(row))
	for i, c := range row {
		out[i] = Escape(c)
	}
	return out
}

// Flush writes what Add kept and ends the output. A list with no items is
// written as an empty list ([] in JSON), or, in a table, as its header.
func (p *Printer) Flush() error {
	err := p.finish()
	// What was written before an error (of --jq, say) is passed on too.
	if ferr := p.w.Flush(); err == nil {
		err = ferr
	}
	return err
}

func (p *Printer) finish() error {
	switch {
	case p.query != nil:
		return p.runQuery(p.asList())
	case p.tmpl != nil:
		return p.tmpl.Execute(p.w, p.asList())
	}
	switch p.format {
	case JSON:
		if !p.started {
			return writeJSON(p.w, []any{})
		}
		_, err := io.WriteString(p.w, "\n]\n")
		return err
	case YAML:
		if !p.started {
			return yaml.NewEncoder(p.w).Encode([]any{})
		}
	case Table:
		return p.table()
	case CSV, Plain:
		if p.csv == nil && !p.started {
			return p.streamRow(nil)
		}
	}
	return nil
}

func (p *Printer) asList() []any {
	if p.items == nil {
		return []any{}
	}
	return p.items
}

// Single writes one value (not a list) in the chosen format; a table
// shows it as one row.
func (p *Printer) Single(v any, row ...string) error {
	if err := p.single(v, row...); err != nil {
		_ = p.w.Flush()
		return err
	}
	return p.w.Flush()
}

func (p *Printer) single(v any, row ...string) error {
	if p.query != nil || p.tmpl != nil || p.format == YAML {
		// These read the value's JSON form, not its Go type. JSON and
		// NDJSON are written from v itself: made into maps first, a
		// large plan's document would be held twice.
		generic, err := Generic(v)
		if err != nil {
			return err
		}
		switch {
		case p.query != nil:
			return p.runQuery(generic)
		case p.tmpl != nil:
			return p.tmpl.Execute(p.w, generic)
		}
		return yaml.NewEncoder(p.w).Encode(generic)
	}
	switch {
	case p.format == NDJSON:
		return json.NewEncoder(p.w).Encode(v)
	case p.format == JSON, len(row) == 0 && len(p.columns) == 0:
		// A document with no columns, such as a flow's answer, is
		// written as JSON in the other formats: a table of it would be
		// empty, and the answer lost.
		return writeJSON(p.w, v)
	}
	if err := p.Add(v, row...); err != nil {
		return err
	}
	return p.Flush()
}

func (p *Printer) table() error {
	t := tablewriter.NewTable(p.w,
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRendition(tw.Rendition{Borders: tw.BorderNone, Settings: tw.Settings{
			Separators: tw.Separators{BetweenColumns: tw.Off, BetweenRows: tw.Off},
			Lines:      tw.Lines{ShowHeaderLine: tw.Off},
		}}),
	)
	if !p.opts.NoHeaders {
		t.Header(toAny(p.columns)...)
	}
	for _, r := range p.rows {
		if err := t.Append(toAny(escapeRow(r))...); err != nil {
			return err
		}
	}
	return t.Render()
}

func (p *Printer) runQuery(input any) error {
	iter := p.query.Run(input)
	for {
		v, ok := iter.Next()
		if !ok {
			return nil
		}
		if err, ok := v.(error); ok {
			return fmt.Errorf("--jq: %w", err)
		}
		if s, ok := v.(string); ok {
			if _, err := fmt.Fprintln(p.w, s); err != nil {
				return err
			}
			continue
		}
		b, err := gojq.Marshal(v)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintln(p.w, string(b)); err != nil {
			return err
		}
	}
}

// Generic turns v into the maps and slices of its JSON form, so that
// jq, templates and YAML see the spec's member names.
func Generic(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		return nil, err
	}
	return normalizeNumbers(out), nil
}

// normalizeNumbers makes json.Number values ints or floats, which gojq and
// yaml understand.
func normalizeNumbers(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			t[k] = normalizeNumbers(x)
		}
	case []any:
		for i, x := range t {
			t[i] = normalizeNumbers(x)
		}
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return int(i)
		}
		f, _ := t.Float64()
		return f
	}
	return v
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}
