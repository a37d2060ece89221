package engine

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

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
