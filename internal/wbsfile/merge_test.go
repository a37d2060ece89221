package wbsfile

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// Rows of one code merge as one reading of the file, row by row, merges
// them: each into the latest record of its code, when the fields agree,
// in file order, whether other rows come between or not.
func TestRepeatedRowsMerge(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		type row struct {
			code, desc, active, link string
		}
		rows := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) row {
			return row{
				code:   rapid.SampledFrom([]string{"A", "B", "C", ""}).Draw(t, "code"),
				desc:   rapid.SampledFrom([]string{"x", "y", ""}).Draw(t, "desc"),
				active: rapid.SampledFrom([]string{"true", "false", ""}).Draw(t, "active"),
				link:   fmt.Sprintf("company=%d", rapid.IntRange(1, 4).Draw(t, "link")),
			}
		}), 0, 12).Draw(t, "rows")
		var file strings.Builder
		file.WriteString("wbsElementCode,description,isActive,businessOrganizations\n")
		for _, r := range rows {
			fmt.Fprintf(&file, "%s,%s,%s,%s\n", r.code, r.desc, r.active, r.link)
		}

		// The reading row by row: the latest record of each code.
		type want struct {
			code, desc, active string
			line               int
			links              []string
		}
		var wants []*want
		latest := map[string]*want{}
		for i, r := range rows {
			if w := latest[r.code]; w != nil && r.code != "" && w.desc == r.desc && w.active == r.active {
				w.links = append(w.links, r.link)
				continue
			}
			w := &want{code: r.code, desc: r.desc, active: r.active, line: i + 2, links: []string{r.link}}
			wants, latest[r.code] = append(wants, w), w
		}

		f, err := ParseBytes([]byte(file.String()), FormatCSV, ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var got []*want
		for _, recs := range [][]Record{f.Records, f.Invalid} {
			for _, r := range recs {
				w := &want{code: r.Code, line: int(r.Line)}
				if r.Description != nil {
					w.desc = *r.Description
				}
				if r.IsActive != nil {
					w.active = fmt.Sprint(*r.IsActive)
				}
				for _, o := range r.Organizations {
					w.links = append(w.links, o.EntityType+"="+o.Code)
				}
				got = append(got, w)
			}
		}
		// Valid and invalid records, each in file order: by line.
		byLine := func(ws []*want) map[int]want {
			m := map[int]want{}
			for _, w := range ws {
				m[w.line] = *w
			}
			return m
		}
		if !reflect.DeepEqual(byLine(got), byLine(wants)) {
			t.Fatalf("file:\n%s\ngot  %v\nwant %v", file.String(), byLine(got), byLine(wants))
		}
	})
}
