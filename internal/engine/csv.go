package engine

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/wbsctl/wbsctl/internal/notation"
)

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
	// One record a line, at most: sized once, not grown row by row. The
	// cells a record points to are kept in two arrays of that size, not
	// one small object each, so that the collector has less to trace
	// while the records are held through a run; the rows themselves are
	// not kept. (A row that names a column twice is refused, but may grow
	// an array: what the records point to stays as it was.)
	rows := bytes.Count(data, []byte("\n")) + 1
	recs := make([]Record, 0, rows)
	descriptions := make([]string, 0, rows)
	actives := make([]bool, 0, rows)
	byCode := make(map[string]int, rows) // index in recs of a code's first row
	r.ReuseRecord = true
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
				descriptions = append(descriptions, cell)
				rec.Description = &descriptions[len(descriptions)-1]
			case "active":
				b, stated, err := parseBool(cell)
				if err != nil {
					p.problem(Problem{Line: line, Code: rec.Code, Field: "isActive", Message: err.Error()})
				}
				if stated {
					actives = append(actives, b)
					rec.IsActive = &actives[len(actives)-1]
				}
			case "orgs":
				orgs, err := notation.Parse(cell)
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
func parseBool(s string) (b, stated bool, err error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "":
		return false, false, nil
	case "true", "yes", "1", "y":
		return true, true, nil
	case "false", "no", "0", "n":
		return false, true, nil
	}
	return false, false, fmt.Errorf("%q is not a boolean (true/false, yes/no, 1/0)", s)
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
