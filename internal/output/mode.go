package output

import "strings"

// Mode is what the output flags ask of a command's result, for a command
// that writes more than one kind of result (a list's items or its pages,
// a plan as a document or as rows): it asks the Mode which, rather than
// reading the flags itself.
type Mode struct {
	// Format is -o as given, "" when not given.
	Format Format
	// Filter is whether --jq or --template filters the JSON form.
	Filter bool
}

// ModeOf is the Mode of a Printer's options.
func ModeOf(o Options) Mode {
	return Mode{Format: Format(strings.ToLower(o.Format)), Filter: o.JQ != "" || o.Template != ""}
}

// Structured reports whether the flags ask for data (-o, --jq or
// --template) rather than the command's own form for people.
func (m Mode) Structured() bool { return m.Format != "" || m.Filter }

// Lines reports whether the flags ask for one JSON value a line
// (-o ndjson, no filter): items can be written as they come.
func (m Mode) Lines() bool { return m.Format == NDJSON && !m.Filter }

// Rows reports whether the flags ask for rows of cells (-o table, csv or
// plain, no filter): a result that is one document is written a row a
// part.
func (m Mode) Rows() bool {
	return !m.Filter && (m.Format == Table || m.Format == CSV || m.Format == Plain)
}

// Whole reports whether the result is written only once all of it is
// known: a filter, JSON, YAML or a table.
func (m Mode) Whole() bool {
	return m.Filter || m.Format == JSON || m.Format == YAML || m.Format == Table
}
