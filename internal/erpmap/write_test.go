package erpmap

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/internal/wbsfile"
	"github.com/wbsctl/wbsctl/sdk"
	"pgregory.net/rapid"
)

// Over maps that can be turned round and elements of every kind, an
// element export --map writes reads back through the map as the same
// element (its code, the fields the map gives, its links of the map's
// types), in CSV of any delimiter, a workbook, JSON and NDJSON; one it
// cannot write so is refused, naming it, and the others are written.
func TestWrittenExportReadsBackThroughTheMap(t *testing.T) {
	columns := []string{"PSP-Element", "Bezeichnung", "Werk", "Kostenstelle", "Status", "Company Code", "a;b"}
	var readBack int // elements written and read back, over all checks
	texts := []string{"P-1", "P-100.01", "Kraftwerk Nord", " spaced ", "0000004711", "4711", "Müller, \"Süd\"", "a;b", "TRUE", "=1+1", "1000", "B3"}
	rapid.Check(t, func(t *rapid.T) {
		cols := rapid.Permutation(columns).Draw(t, "columns")
		headerRow := rapid.IntRange(0, 3).Draw(t, "headerRow")
		var m strings.Builder
		m.WriteString("version: 1\n")
		if headerRow == 0 {
			fmt.Fprintf(&m, "header: {find: [%q]}\n", cols[0])
		} else {
			fmt.Fprintf(&m, "header: {row: %d}\n", headerRow)
		}
		rule := func(label, col string, value bool) string {
			switch rapid.IntRange(0, 3).Draw(t, label) {
			case 1:
				return fmt.Sprintf("{expr: 'trim($env[%q])'}", col)
			case 2:
				return fmt.Sprintf("{column: %q, alpha: true}", col)
			case 3:
				if value {
					return fmt.Sprintf("{value: %q}", rapid.SampledFrom(texts).Draw(t, label+"Value"))
				}
			}
			return fmt.Sprintf("%q", col)
		}
		fmt.Fprintf(&m, "wbsElementCode: %s\n", rule("code", cols[0], false))
		if rapid.Bool().Draw(t, "description") {
			fmt.Fprintf(&m, "description: %s\n", rule("description", cols[1], true))
		}
		switch rapid.IntRange(0, 2).Draw(t, "isActive") {
		case 1:
			fmt.Fprintf(&m, "isActive: %q\n", cols[2])
		case 2:
			fmt.Fprintf(&m, "isActive:\n  column: %q\n  words: %v\n  map: {CLSD: false, TECO: false, REL: true}\n  else: %s\n",
				cols[2], rapid.Bool().Draw(t, "words"), rapid.SampledFrom([]string{"error", "true", "false"}).Draw(t, "else"))
		}
		types := []string{"company", "plant", "costCenter"}[:rapid.IntRange(0, 3).Draw(t, "types")]
		if len(types) > 0 {
			m.WriteString("organizations:\n")
		}
		for i, typ := range types {
			fmt.Fprintf(&m, "  %s: %s\n", typ, rule("org"+typ, cols[3+i], true))
		}
		mp, err := Parse("m.wbsmap.yaml", []byte(m.String()))
		if err != nil {
			t.Fatalf("%s\n%v", m.String(), err)
		}
		w, err := mp.Writer()
		if err != nil {
			t.Fatalf("a map of columns, trim and alpha is refused:\n%s\n%v", m.String(), err)
		}

		n := rapid.IntRange(0, 6).Draw(t, "elements")
		var records []wbsfile.Record
		for i := range n {
			r := wbsfile.Record{Code: fmt.Sprintf("%s-%d", rapid.SampledFrom(texts).Draw(t, "code"), i), Texts: wbsfile.Texts{Description: sdk.Ptr(rapid.SampledFrom(texts).Draw(t, "desc"))},
				IsActive: sdk.Ptr(rapid.Bool().Draw(t, "active")), OrganizationsSet: true, Organizations: []sdk.BusinessOrganization{}}
			for _, typ := range append(slices.Clone(types), "branch") {
				for range rapid.IntRange(0, 2).Draw(t, "links of "+typ) {
					r.Organizations = append(r.Organizations, sdk.BusinessOrganization{Code: rapid.SampledFrom(texts).Draw(t, "org"), EntityType: typ})
				}
			}
			records = append(records, r)
		}

		format := rapid.SampledFrom([]wbsfile.Format{wbsfile.FormatCSV, wbsfile.FormatXLSX, wbsfile.FormatJSON, wbsfile.FormatNDJSON}).Draw(t, "format")
		var opts wbsfile.WriteOptions
		if format == wbsfile.FormatCSV {
			opts.Delimiter = rapid.SampledFrom([]rune{',', ';', '\t'}).Draw(t, "delimiter")
			opts.BOM = rapid.Bool().Draw(t, "bom")
		}
		var buf bytes.Buffer
		tw, err := NewTableWriter(&buf, format, opts, w.Header(), mp.HeaderRow())
		if err != nil {
			if (format == wbsfile.FormatJSON || format == wbsfile.FormatNDJSON) && mp.HeaderRow() > 1 {
				return // a header below row 1 needs rows above it
			}
			t.Fatal(err)
		}
		var written []wbsfile.Record
		for _, r := range records {
			row, err := w.Row(r)
			if unwritable := (*wbsfile.UnwritableError)(nil); errors.As(err, &unwritable) {
				if unwritable.Code != r.Code || !strings.Contains(err.Error(), fmt.Sprintf("%q", r.Code)) {
					t.Fatalf("the refusal does not name %q: %v", r.Code, err)
				}
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := tw.Write(row); err != nil {
				t.Fatal(err)
			}
			written = append(written, r)
		}
		if err := tw.Close(); err != nil {
			t.Fatal(err)
		}
		if len(written) == 0 {
			return // a header alone is an export the map refuses to read
		}
		shown := buf.String()
		if format == wbsfile.FormatXLSX {
			shown = "(a workbook)"
		}
		read := wbsfile.ReadOptions{}
		if format == wbsfile.FormatCSV {
			read.Delimiter = opts.Delimiter
		}
		table, err := ReadTable(buf.Bytes(), format, read)
		if err != nil {
			t.Fatalf("%s\nReadTable: %v\n%q", m.String(), err, shown)
		}
		defer table.Close()
		res, err := mp.Read(table, wbsfile.Checks{})
		if err != nil {
			t.Fatalf("%s\nRead: %v\n%q", m.String(), err, shown)
		}
		if len(res.File.Problems) > 0 {
			t.Fatalf("%s\nread back with problems: %v\n%q", m.String(), res.File.Problems, shown)
		}
		if len(res.File.Records) != len(written) {
			t.Fatalf("%s\nwrote %d elements, read back %d\n%q", m.String(), len(written), len(res.File.Records), shown)
		}
		readBack += len(written)
		for i, want := range written {
			got := res.File.Records[i]
			if got.Code != want.Code {
				t.Fatalf("element %d: code %q read back as %q", i, want.Code, got.Code)
			}
			if mp.texts[0] != nil && (got.Description == nil || *got.Description != *want.Description) {
				t.Fatalf("%q: description %q read back as %v", want.Code, *want.Description, got.Description)
			}
			if mp.active != nil && (got.IsActive == nil || *got.IsActive != *want.IsActive) {
				t.Fatalf("%q: isActive %v read back as %v", want.Code, *want.IsActive, got.IsActive)
			}
			owned := func(r wbsfile.Record) []sdk.BusinessOrganization {
				var links []sdk.BusinessOrganization
				for _, o := range r.Organizations {
					if slices.Contains(types, o.EntityType) {
						links = append(links, o)
					}
				}
				slices.SortFunc(links, func(a, b sdk.BusinessOrganization) int { return strings.Compare(a.EntityType, b.EntityType) })
				return links
			}
			if g, wl := owned(got), owned(want); !slices.Equal(g, wl) {
				t.Fatalf("%s\n%q: links %v read back as %v", m.String(), want.Code, wl, g)
			}
		}
	})
	if readBack == 0 {
		t.Fatal("no element was written and read back")
	}
}

// A map that cannot be turned round is refused, naming each rule and its
// line.
func TestWriterRefusesWhatCannotBeTurnedRound(t *testing.T) {
	mp, err := Parse("d.wbsmap.yaml", []byte("version: 1\nwbsElementCode: {expr: 'concat(A, \"-\", B)'}\ndescription: C\nisActive: {expr: 'D == \"x\"'}\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = mp.Writer()
	var me *Error
	if !errors.As(err, &me) || len(me.Problems) != 2 ||
		me.Problems[0].String() != `d.wbsmap.yaml:2: wbsElementCode: the expression concat(A, "-", B) cannot be turned round: export --map writes a field a column gives, or trim of one` ||
		me.Problems[1].Line != 4 || me.Problems[1].Rule != "isActive" {
		t.Fatalf("%v", err)
	}
}

// export --map refuses a value that reading its cell back would change,
// naming the element, the field and the rule: the spaces trim would take,
// the leading zeros alpha would.
func TestExportRefusesAValueItsCellWouldChange(t *testing.T) {
	mp, err := Parse("m.wbsmap.yaml", []byte("version: 1\nwbsElementCode: PSP\ndescription: {expr: 'trim(Bezeichnung)'}\norganizations:\n  plant: {column: Werk, alpha: true}\n"))
	if err != nil {
		t.Fatal(err)
	}
	w, err := mp.Writer()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		rec  wbsfile.Record
		want string
	}{
		{wbsfile.Record{Code: "P-1", Texts: wbsfile.Texts{Description: sdk.Ptr(" spaced ")}},
			`"P-1": its description is " spaced ", and trim(Bezeichnung) would take the spaces around it (m.wbsmap.yaml:3)`},
		{wbsfile.Record{Code: "P-2", OrganizationsSet: true, Organizations: []sdk.BusinessOrganization{{Code: "0000004711", EntityType: "plant"}}},
			`"P-2": its organizations.plant is "0000004711", and alpha would take its leading zeros (m.wbsmap.yaml:5)`},
	} {
		_, err := w.Row(tt.rec)
		if unwritable := (*wbsfile.UnwritableError)(nil); !errors.As(err, &unwritable) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want a refusal saying %s", tt.rec.Code, err, tt.want)
		}
	}
	if _, err := w.Row(wbsfile.Record{Code: "P-3", Texts: wbsfile.Texts{Description: sdk.Ptr("kept")}}); err != nil {
		t.Errorf("a value that reads back: %v", err)
	}
}
