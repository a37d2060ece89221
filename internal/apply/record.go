package apply

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/wbsctl/wbsctl/sdk"
	"gopkg.in/yaml.v3"
)

// Record is the desired state of one element, as a file states it. A
// field the file leaves out is not managed: Description nil keeps the
// platform's description, IsActive nil keeps the flag (a new element is
// then active), OrganizationsSet false leaves the links alone. A field the
// file states is made exactly so; an empty description clears it, an
// empty organization list removes every link.
type Record struct {
	// Line is the record's line in the file (CSV, NDJSON: the line; JSON,
	// YAML: the line where the record starts).
	Line             int
	Code             string
	Description      *string
	IsActive         *bool
	Organizations    []sdk.BusinessOrganization
	OrganizationsSet bool
}

// Problem is one thing wrong with a file.
type Problem struct {
	Line    int    `json:"line"`
	Code    string `json:"wbsElementCode,omitempty"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}

func (p Problem) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "line %d", p.Line)
	if p.Code != "" {
		fmt.Fprintf(&b, " (code %s)", strconv.Quote(p.Code))
	}
	b.WriteString(": ")
	if p.Field != "" {
		b.WriteString(p.Field + ": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// File is a parsed file: its valid records and its problems.
type File struct {
	Records  []Record
	Problems []Problem
	// Invalid holds the records left out because of a problem.
	Invalid []Record
}

// Format is a file format.
type Format string

// The formats apply reads and export writes.
const (
	FormatCSV    Format = "csv"
	FormatJSON   Format = "json"
	FormatNDJSON Format = "ndjson"
	FormatYAML   Format = "yaml"
)

// DetectFormat picks the format from override, else from the file name's
// extension.
func DetectFormat(name, override string) (Format, error) {
	if override != "" {
		switch f := Format(strings.ToLower(override)); f {
		case FormatCSV, FormatJSON, FormatNDJSON, FormatYAML:
			return f, nil
		}
		return "", fmt.Errorf("--format %q: use csv, json, ndjson or yaml", override)
	}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".csv":
		return FormatCSV, nil
	case ".json":
		return FormatJSON, nil
	case ".ndjson", ".jsonl":
		return FormatNDJSON, nil
	case ".yaml", ".yml":
		return FormatYAML, nil
	}
	return "", fmt.Errorf("cannot tell the format of %q: name it .csv, .json, .ndjson or .yaml, or give --format", name)
}

// maxFileBytes bounds what Parse reads.
const maxFileBytes = 256 << 20

// maxProblems bounds how many problems are reported.
const maxProblems = 1000

// Parse reads a whole file and checks every record against the spec's
// limits, collecting every problem instead of stopping at the first.
func Parse(r io.Reader, f Format) (*File, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxFileBytes {
		return nil, fmt.Errorf("the file is larger than %d bytes", maxFileBytes)
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	p := &parser{file: &File{}}
	if !utf8.Valid(data) {
		at := firstInvalid(data)
		line := 1 + bytes.Count(data[:at], []byte("\n"))
		field := ""
		if f == FormatCSV {
			field = csvColumnAt(data, at)
		}
		p.problem(Problem{Line: line, Field: field, Message: "is not valid UTF-8"})
		return p.file, nil
	}
	var recs []Record
	switch f {
	case FormatCSV:
		recs = p.csv(data)
	case FormatJSON:
		recs = p.jsonArray(data)
	case FormatNDJSON:
		recs = p.ndjson(data)
	case FormatYAML:
		recs = p.yaml(data)
	default:
		return nil, fmt.Errorf("unknown format %q", f)
	}
	p.check(recs)
	return p.file, nil
}

type parser struct {
	file *File
	bad  map[int]bool // lines with a problem
}

func (p *parser) problem(pr Problem) {
	if p.bad == nil {
		p.bad = map[int]bool{}
	}
	p.bad[pr.Line] = true
	if len(p.file.Problems) < maxProblems {
		p.file.Problems = append(p.file.Problems, pr)
	}
}

// check validates the records against the SDK's limits and finds codes
// given twice, then sorts them into valid and invalid.
func (p *parser) check(recs []Record) {
	if len(recs) == 0 && len(p.file.Problems) == 0 {
		p.problem(Problem{Line: 1, Message: "the file holds no records"})
	}
	first := map[string]int{}
	for _, r := range recs {
		req := createRequest(&r)
		if r.Description != nil {
			req.Description = r.Description
		}
		if err := req.Validate(); err != nil {
			var ve *sdk.ValidationError
			if errors.As(err, &ve) {
				for _, v := range ve.Violations {
					p.problem(Problem{Line: r.Line, Code: r.Code, Field: v.Field, Message: v.Message + " (limit: " + v.Limit + ")"})
				}
			}
		}
		if line, dup := first[r.Code]; dup && r.Code != "" {
			p.problem(Problem{Line: r.Line, Code: r.Code, Field: "wbsElementCode", Message: fmt.Sprintf("the same code is on line %d", line)})
		} else {
			first[r.Code] = r.Line
		}
	}
	for _, r := range recs {
		if p.bad[r.Line] {
			p.file.Invalid = append(p.file.Invalid, r)
		} else {
			p.file.Records = append(p.file.Records, r)
		}
	}
}

// CSV columns and their aliases.
var csvColumns = map[string]string{
	"wbselementcode": "code", "code": "code",
	"description": "description",
	"isactive":    "active", "active": "active",
	"businessorganizations": "orgs", "organizations": "orgs",
}

func (p *parser) csv(data []byte) []Record {
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err == io.EOF {
		return nil
	}
	if err != nil {
		p.problem(Problem{Line: 1, Message: "unreadable header: " + err.Error()})
		return nil
	}
	cols := make([]string, len(header))
	seen := map[string]bool{}
	for i, h := range header {
		name, ok := csvColumns[strings.ToLower(strings.TrimSpace(h))]
		switch {
		case !ok:
			p.problem(Problem{Line: 1, Field: h, Message: "unknown column (known: wbsElementCode, description, isActive, businessOrganizations)"})
		case seen[name]:
			p.problem(Problem{Line: 1, Field: h, Message: "column given twice"})
		}
		seen[name], cols[i] = true, name
	}
	if !seen["code"] {
		p.problem(Problem{Line: 1, Field: "wbsElementCode", Message: "the header has no wbsElementCode column"})
		return nil
	}
	var recs []Record
	byCode := map[string]int{} // index in recs of a code's first row
	for {
		row, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			line := 0
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				line = pe.Line
			}
			p.problem(Problem{Line: line, Message: "unreadable row: " + err.Error()})
			continue
		}
		line, _ := r.FieldPos(0)
		if len(row) != len(header) {
			p.problem(Problem{Line: line, Message: fmt.Sprintf("has %d cells, the header %d", len(row), len(header))})
			continue
		}
		rec := Record{Line: line}
		for i, cell := range row {
			switch cols[i] {
			case "code":
				rec.Code = cell
			case "description":
				rec.Description = &row[i]
			case "active":
				b, err := parseBool(cell)
				if err != nil {
					p.problem(Problem{Line: line, Code: rec.Code, Field: "isActive", Message: err.Error()})
				}
				rec.IsActive = b
			case "orgs":
				orgs, err := ParseOrganizations(cell)
				if err != nil {
					p.problem(Problem{Line: line, Code: rec.Code, Field: "businessOrganizations", Message: err.Error()})
				}
				rec.Organizations, rec.OrganizationsSet = orgs, true
			}
		}
		// Repeated rows of one code add organizations, when the rest
		// agrees.
		if i, ok := byCode[rec.Code]; ok && rec.Code != "" && seen["orgs"] && sameFields(recs[i], rec) {
			recs[i].Organizations = append(recs[i].Organizations, rec.Organizations...)
			continue
		}
		byCode[rec.Code] = len(recs)
		recs = append(recs, rec)
	}
	return recs
}

func sameFields(a, b Record) bool {
	return deref(a.Description) == deref(b.Description) && (a.Description == nil) == (b.Description == nil) &&
		(a.IsActive == nil) == (b.IsActive == nil) && (a.IsActive == nil || *a.IsActive == *b.IsActive)
}

// parseBool reads a CSV boolean; an empty cell is not stated.
func parseBool(s string) (*bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "":
		return nil, nil
	case "true", "yes", "1", "y":
		return sdk.Ptr(true), nil
	case "false", "no", "0", "n":
		return sdk.Ptr(false), nil
	}
	return nil, fmt.Errorf("%q is not a boolean (true/false, yes/no, 1/0)", s)
}

// ParseOrganizations reads the one-cell notation of organizations:
// TYPE=CODE pairs separated by ';', with '\' escaping ';', '=' and '\'.
// "company=1000;branch=B\;1" is company 1000 and branch "B;1". An empty
// cell is an empty list.
func ParseOrganizations(s string) ([]sdk.BusinessOrganization, error) {
	if strings.TrimSpace(s) == "" {
		return []sdk.BusinessOrganization{}, nil
	}
	var out []sdk.BusinessOrganization
	var parts [2]strings.Builder
	part, escaped := 0, false
	flush := func() error {
		t, c := parts[0].String(), parts[1].String()
		parts[0].Reset()
		parts[1].Reset()
		if part == 0 {
			return fmt.Errorf("%q: want TYPE=CODE", t)
		}
		if t == "" || c == "" {
			return fmt.Errorf("%q: type and code must not be empty", t+"="+c)
		}
		out = append(out, sdk.BusinessOrganization{EntityType: t, Code: c})
		part = 0
		return nil
	}
	for _, r := range s {
		switch {
		case escaped:
			parts[part].WriteRune(r)
			escaped = false
		case r == '\\':
			escaped = true
		case r == '=' && part == 0:
			part = 1
		case r == ';':
			if err := flush(); err != nil {
				return nil, err
			}
		default:
			parts[part].WriteRune(r)
		}
	}
	if escaped {
		return nil, errors.New("ends with a lone backslash")
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return out, nil
}

// FormatOrganizations writes organizations in the notation
// ParseOrganizations reads.
func FormatOrganizations(orgs []sdk.BusinessOrganization) string {
	esc := strings.NewReplacer(`\`, `\\`, ";", `\;`, "=", `\=`)
	parts := make([]string, len(orgs))
	for i, o := range orgs {
		parts[i] = esc.Replace(o.EntityType) + "=" + esc.Replace(o.Code)
	}
	return strings.Join(parts, ";")
}

// jsonRecord is a record of JSON, NDJSON and YAML files.
type jsonRecord struct {
	Code          *string             `json:"wbsElementCode" yaml:"wbsElementCode"`
	Description   *string             `json:"description" yaml:"description"`
	IsActive      *bool               `json:"isActive" yaml:"isActive"`
	Organizations *[]fileOrganization `json:"businessOrganizations" yaml:"businessOrganizations"`
}

// fileOrganization is an organization in JSON, NDJSON and YAML files.
type fileOrganization struct {
	Code       string `json:"code" yaml:"code"`
	EntityType string `json:"entityType" yaml:"entityType"`
}

func (j jsonRecord) record(line int) Record {
	r := Record{Line: line, Description: j.Description, IsActive: j.IsActive}
	if j.Code != nil {
		r.Code = *j.Code
	}
	if j.Organizations != nil {
		r.Organizations, r.OrganizationsSet = []sdk.BusinessOrganization{}, true
		for _, o := range *j.Organizations {
			r.Organizations = append(r.Organizations, sdk.BusinessOrganization(o))
		}
	}
	return r
}

func (p *parser) decodeJSON(raw []byte, line int) (Record, bool) {
	var j jsonRecord
	if err := DecodeStrict(raw, &j); err != nil {
		var me *MemberError
		if errors.As(err, &me) {
			p.problem(Problem{Line: line, Field: me.Path, Message: me.Message})
		} else {
			p.problem(Problem{Line: line, Message: jsonProblem(err)})
		}
		return Record{}, false
	}
	if j.Code == nil {
		p.problem(Problem{Line: line, Field: "wbsElementCode", Message: "is required"})
		return Record{}, false
	}
	return j.record(line), true
}

func jsonProblem(err error) string {
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		return fmt.Sprintf("%s: must be %s, not %s", typ.Field, typ.Type.String(), typ.Value)
	}
	if errors.Is(err, errDataAfterValue) {
		return "data after the record: a line holds one record"
	}
	msg := err.Error()
	if strings.HasPrefix(msg, "json: unknown field ") {
		return strings.TrimPrefix(msg, "json: ") + " (known: wbsElementCode, description, isActive, businessOrganizations)"
	}
	return "invalid JSON: " + strings.TrimPrefix(msg, "json: ")
}

func (p *parser) ndjson(data []byte) []Record {
	var recs []Record
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for line := 1; sc.Scan(); line++ {
		raw := bytes.TrimSpace(sc.Bytes())
		if len(raw) == 0 {
			continue
		}
		if r, ok := p.decodeJSON(raw, line); ok {
			recs = append(recs, r)
		}
	}
	return recs
}

func (p *parser) jsonArray(data []byte) []Record {
	lineAt := func(off int64) int { return 1 + bytes.Count(data[:min(int(off), len(data))], []byte("\n")) }
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('[') {
		p.problem(Problem{Line: 1, Message: "a JSON file must hold an array of records"})
		return nil
	}
	var recs []Record
	for dec.More() {
		var raw json.RawMessage
		start := dec.InputOffset()
		if err := dec.Decode(&raw); err != nil {
			p.problem(Problem{Line: lineAt(start), Message: jsonProblem(err)})
			return recs
		}
		line := lineAt(start + int64(len(data[start:])-len(bytes.TrimLeft(data[start:], " \t\r\n,"))))
		if r, ok := p.decodeJSON(raw, line); ok {
			recs = append(recs, r)
		}
	}
	if _, err := dec.Token(); err != nil {
		p.problem(Problem{Line: lineAt(dec.InputOffset()), Message: "the array is not closed"})
	}
	if _, err := dec.Token(); err != io.EOF {
		p.problem(Problem{Line: lineAt(dec.InputOffset()), Message: "data after the array"})
	}
	return recs
}

func (p *parser) yaml(data []byte) []Record {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		p.problem(Problem{Line: 1, Message: "invalid YAML: " + err.Error()})
		return nil
	}
	// A second document would be ignored, and its records pruned.
	var next yaml.Node
	if err := dec.Decode(&next); !errors.Is(err, io.EOF) {
		line := next.Line
		if err != nil || line == 0 {
			line = 1
		}
		p.problem(Problem{Line: line, Message: "a second YAML document: a file holds one sequence of records"})
		return nil
	}
	if len(doc.Content) == 0 {
		return nil
	}
	seq := doc.Content[0]
	if seq.Kind != yaml.SequenceNode {
		p.problem(Problem{Line: seq.Line, Message: "a YAML file must hold a sequence of records"})
		return nil
	}
	var recs []Record
	for _, n := range seq.Content {
		if n.Kind != yaml.MappingNode {
			p.problem(Problem{Line: n.Line, Message: "a record must be a mapping"})
			continue
		}
		ok, dup := true, false
		seen := map[string]bool{}
		for i := 0; i < len(n.Content); i += 2 {
			k := n.Content[i].Value
			switch {
			case seen[k]:
				p.problem(Problem{Line: n.Content[i].Line, Field: k, Message: "given more than once"})
				ok, dup = false, true
			case k == "wbsElementCode", k == "description", k == "isActive", k == "businessOrganizations":
			default:
				p.problem(Problem{Line: n.Content[i].Line, Field: k, Message: "unknown member (known: wbsElementCode, description, isActive, businessOrganizations)"})
				ok = false
			}
			seen[k] = true
		}
		if dup {
			continue // decoding would only repeat it
		}
		var j jsonRecord
		if err := n.Decode(&j); err != nil {
			p.problem(Problem{Line: n.Line, Message: "wrong type: " + strings.TrimPrefix(err.Error(), "yaml: unmarshal errors:\n  ")})
			continue
		}
		if j.Code == nil {
			p.problem(Problem{Line: n.Line, Field: "wbsElementCode", Message: "is required"})
			continue
		}
		if ok {
			recs = append(recs, j.record(n.Line))
		}
	}
	return recs
}

// csvColumnAt names the column of a CSV file that byte at falls in, by
// the header, or "" when it cannot tell (a quoted cell over several
// lines).
func csvColumnAt(data []byte, at int) string {
	header, _, _ := bytes.Cut(data, []byte("\n"))
	names, err := csv.NewReader(bytes.NewReader(header)).Read()
	if err != nil {
		return ""
	}
	start := bytes.LastIndexByte(data[:at], '\n') + 1
	col, quoted := 0, false
	for _, c := range data[start:at] {
		switch {
		case c == '"':
			quoted = !quoted
		case c == ',' && !quoted:
			col++
		}
	}
	if start == 0 || col >= len(names) {
		return ""
	}
	return strings.TrimSpace(names[col])
}

func firstInvalid(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(b)
}
