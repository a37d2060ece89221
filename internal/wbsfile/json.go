package wbsfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/wbsctl/wbsctl/internal/strictjson"
	"github.com/wbsctl/wbsctl/sdk"
)

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
	r := Record{Line: int32(line), Description: j.Description, IsActive: j.IsActive}
	if j.Code != nil {
		r.Code = *j.Code
	}
	if j.Organizations != nil {
		r.Organizations, r.OrganizationsSet = make([]sdk.BusinessOrganization, len(*j.Organizations)), true
		for i, o := range *j.Organizations {
			r.Organizations[i] = sdk.BusinessOrganization(o)
		}
	}
	return r
}

func (p *parser) decodeJSON(raw []byte, line int) (Record, bool) {
	var j jsonRecord
	if err := strictjson.Unmarshal(raw, &j); err != nil {
		code := jsonCode(raw)
		var e *strictjson.Error
		switch {
		case !errors.As(err, &e):
			p.problem(Problem{Line: line, Code: code, Message: err.Error()})
		case e.Kind == strictjson.DataAfter:
			p.problem(Problem{Line: line, Message: "data after the record: a line holds one record"})
		default:
			p.problem(Problem{Line: line, Code: code, Field: e.Path, Message: e.Message})
		}
		return Record{}, false
	}
	if j.Code == nil {
		p.problem(Problem{Line: line, Field: "wbsElementCode", Message: "is required"})
		return Record{}, false
	}
	return j.record(line), true
}

// jsonCode is the code of a record the strict rules refused, as any
// reading of it would find it: the string of its one member named
// wbsElementCode in any case. It is "" where readings could differ: a
// record that is no object or not valid JSON, a code that is no string,
// two members that could each be the code.
func jsonCode(raw []byte) string {
	dec := jsontext.NewDecoder(bytes.NewReader(raw), jsontext.AllowDuplicateNames(true))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return ""
	}
	code, found := "", 0
	for dec.PeekKind() == '"' {
		tok, err := dec.ReadToken()
		if err != nil {
			return ""
		}
		name := tok.String() // before the decoder reads on
		value, err := dec.ReadValue()
		if err != nil {
			return ""
		}
		if !strings.EqualFold(name, "wbsElementCode") {
			continue
		}
		if found++; value.Kind() != '"' {
			return ""
		}
		if err := json.Unmarshal(value, &code); err != nil {
			return ""
		}
	}
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '}' || found != 1 {
		return ""
	}
	return code
}

func (p *parser) ndjson(data []byte) []Record {
	var recs []Record
	for line := 1; len(data) > 0; line++ {
		var raw []byte
		raw, data, _ = bytes.Cut(data, []byte("\n"))
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 {
			continue
		}
		if r, ok := p.decodeJSON(raw, line); ok {
			recs = append(recs, r)
		}
	}
	return recs
}

// jsonArray reads an array of records a record at a time: a record with a
// problem is reported by its line, and the others are read all the same.
func (p *parser) jsonArray(data []byte) []Record {
	// lineAt counts lines from where it counted last: offsets only grow.
	line, counted := 1, 0
	lineAt := func(off int64) int {
		to := min(int(off), len(data))
		line += bytes.Count(data[counted:to], []byte("\n"))
		counted = to
		return line
	}
	// Each record is decoded by the strict rules on its own; the array
	// only finds where each begins and ends.
	dec := jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowDuplicateNames(true))
	tok, err := dec.ReadToken()
	wrapped := err == nil && tok.Kind() == '{'
	seen := map[string]bool{}
	if wrapped {
		if !p.wrapperMembers(dec, seen, lineAt) {
			return nil
		}
		tok, err = dec.ReadToken()
	}
	switch {
	case wrapped && (err != nil || tok.Kind() != '['):
		p.problem(Problem{Line: lineAt(dec.InputOffset()), Field: wrapperMember, Message: "must be an array of records"})
		return nil
	case err != nil || tok.Kind() != '[':
		p.problem(Problem{Line: 1, Message: "a JSON file must hold an array of records, or an object of $schema and " + wrapperMember})
		return nil
	}
	var recs []Record
	for dec.PeekKind() != ']' {
		start := dec.InputOffset()
		raw, err := dec.ReadValue()
		if err != nil {
			p.problem(Problem{Line: lineAt(start), Message: "invalid JSON: " + syntaxMessage(err)})
			return recs
		}
		line := lineAt(dec.InputOffset() - int64(len(raw)))
		if r, ok := p.decodeJSON(raw, line); ok {
			recs = append(recs, r)
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		p.problem(Problem{Line: lineAt(dec.InputOffset()), Message: "the array is not closed"})
		return recs
	}
	if wrapped && !p.wrapperMembers(dec, seen, lineAt) {
		return recs
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		p.problem(Problem{Line: lineAt(dec.InputOffset()), Message: "data after the array"})
	}
	return recs
}

// wrapperMember is the member of the object form of a JSON or YAML file
// that holds its records: {"$schema": "…", "wbsElements": […]}. The form
// exists so that a file can name its schema for an editor; $schema is
// read and left alone.
const wrapperMember = "wbsElements"

// wrapperMembers reads the members of the object form up to the start of
// wbsElements's array, or after it up to the object's end: it reports
// a member other than $schema and wbsElements, or one given twice, and
// returns false then.
func (p *parser) wrapperMembers(dec *jsontext.Decoder, seen map[string]bool, lineAt func(int64) int) bool {
	for dec.PeekKind() == '"' {
		tok, err := dec.ReadToken()
		if err != nil {
			break
		}
		// A name ends on the line it starts on.
		at := dec.InputOffset()
		name := tok.String()
		if seen[name] {
			p.problem(Problem{Line: lineAt(at), Field: name, Message: "given more than once"})
			return false
		}
		seen[name] = true
		switch name {
		case wrapperMember:
			return true
		case "$schema":
			if dec.PeekKind() != '"' {
				p.problem(Problem{Line: lineAt(at), Field: name, Message: "must be a string, the schema's address"})
				return false
			}
			if _, err := dec.ReadValue(); err != nil {
				break
			}
		default:
			p.problem(Problem{Line: lineAt(at), Field: name, Message: "unknown member (known: $schema, " + wrapperMember + ")"})
			return false
		}
	}
	tok, err := dec.ReadToken()
	switch {
	case err != nil:
		p.problem(Problem{Line: lineAt(dec.InputOffset()), Message: "invalid JSON: " + syntaxMessage(err)})
		return false
	case tok.Kind() != '}':
		p.problem(Problem{Line: lineAt(dec.InputOffset()), Message: "invalid JSON: unexpected " + tok.String()})
		return false
	case !seen[wrapperMember]:
		p.problem(Problem{Line: lineAt(dec.InputOffset()), Field: wrapperMember, Message: "is required: the array of records"})
		return false
	}
	return true
}

// syntaxMessage is a syntax error of the JSON reader without its
// package's name.
func syntaxMessage(err error) string {
	var syn *jsontext.SyntacticError
	if errors.As(err, &syn) {
		return syn.Err.Error()
	}
	return err.Error()
}
