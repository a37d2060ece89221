package wbsfile

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/sdk"
	"gopkg.in/yaml.v3"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// Every broken file gives its documented problems (the .golden beside it)
// and no valid record when all its records are broken.
func TestBadInputCorpus(t *testing.T) {
	files, _ := filepath.Glob("testdata/bad/*")
	n := 0
	for _, name := range files {
		if strings.HasSuffix(name, ".golden") {
			continue
		}
		n++
		t.Run(filepath.Base(name), func(t *testing.T) {
			f, err := os.Open(name)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			format, err := DetectFormat(name, "")
			if err != nil {
				t.Fatal(err)
			}
			file, err := Parse(f, format)
			if err != nil {
				t.Fatal(err)
			}
			if len(file.Problems) == 0 {
				t.Fatal("no problem reported")
			}
			var got strings.Builder
			for _, p := range file.Problems {
				got.WriteString(p.String() + "\n")
			}
			golden := name + ".golden"
			if *update {
				os.WriteFile(golden, []byte(got.String()), 0o644)
			}
			want, _ := os.ReadFile(golden)
			if got.String() != string(want) {
				t.Fatalf("problems:\n%s\nwant:\n%s", got.String(), want)
			}
		})
	}
	if n < 30 {
		t.Fatalf("the corpus has %d files, want at least 30", n)
	}
}

func TestGoodFilesRoundTrip(t *testing.T) {
	files, _ := filepath.Glob("testdata/good/*")
	for _, name := range files {
		t.Run(filepath.Base(name), func(t *testing.T) {
			f, _ := os.Open(name)
			defer f.Close()
			format, _ := DetectFormat(name, "")
			file, err := Parse(f, format)
			if err != nil || len(file.Problems) > 0 || len(file.Records) == 0 {
				t.Fatalf("%v %v", err, file.Problems)
			}
			for _, out := range []Format{FormatCSV, FormatJSON, FormatNDJSON, FormatYAML} {
				var buf bytes.Buffer
				if err := Write(&buf, out, file.Records); err != nil {
					t.Fatal(err)
				}
				back, err := Parse(&buf, out)
				if err != nil || len(back.Problems) > 0 {
					t.Fatalf("%s: %v %v\n%s", out, err, back.Problems, buf.String())
				}
				if !sameRecords(file.Records, back.Records) {
					t.Fatalf("%s round trip:\n%+v\n%+v", out, file.Records, back.Records)
				}
			}
		})
	}
}

// sameRecords compares what a written file states: every field, with
// unstated ones at their defaults.
func sameRecords(a, b []Record) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.Code != y.Code || deref(x.Description) != deref(y.Description) ||
			(x.IsActive == nil || *x.IsActive) != (y.IsActive == nil || *y.IsActive) ||
			!reflect.DeepEqual(append([]sdk.BusinessOrganization{}, x.Organizations...), append([]sdk.BusinessOrganization{}, y.Organizations...)) {
			return false
		}
	}
	return true
}

func FuzzParse(f *testing.F) {
	for _, name := range append(must(filepath.Glob("testdata/good/*")), must(filepath.Glob("testdata/bad/*"))...) {
		if b, err := os.ReadFile(name); err == nil && !strings.HasSuffix(name, ".golden") {
			f.Add(b, uint8(0))
		}
	}
	formats := []Format{FormatCSV, FormatJSON, FormatNDJSON, FormatYAML}
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		format := formats[int(which)%len(formats)]
		file, err := Parse(bytes.NewReader(data), format)
		if err != nil {
			return
		}
		keepsContract(t, format, data, file)
		if len(file.Problems) > 0 {
			return
		}
		roundTrips(t, format, file.Records)
	})
}

// keepsContract checks the contract of File: the codes a prune keeps (the
// valid records' and InvalidCodes) hold every code that a lenient reading
// of data finds, unless CodeUnknown says a code is unknown; no valid
// record has a code that a problem names.
func keepsContract(t *testing.T, format Format, data []byte, file *File) {
	t.Helper()
	kept := map[string]bool{}
	for _, c := range file.InvalidCodes {
		kept[c] = true
	}
	for _, r := range file.Records {
		if kept[r.Code] || r.Code == "" {
			t.Fatalf("the valid record %q of line %d has a problem: %v", r.Code, r.Line, file.Problems)
		}
	}
	for _, p := range file.Problems {
		if p.Code == "" && file.CodeUnknown == nil {
			t.Fatalf("the problem %q names no code, and CodeUnknown is nil", p)
		}
		if p.Code != "" && !kept[p.Code] {
			t.Fatalf("the problem %q names a code InvalidCodes does not hold: %q", p, file.InvalidCodes)
		}
	}
	for _, r := range file.Records {
		kept[r.Code] = true
	}
	if file.CodeUnknown != nil {
		return
	}
	for _, code := range lenientCodes(format, data) {
		if !kept[code] {
			t.Fatalf("a lenient reading finds the code %q, which a prune could delete: records %+v, problems %v\n%s", code, file.Records, file.Problems, data)
		}
	}
}

// lenientCodes are the codes a reader that is not strict finds in data:
// the string of every member of a record named wbsElementCode in any case.
func lenientCodes(format Format, data []byte) []string {
	var docs []any
	switch format {
	case FormatJSON:
		var v any
		if json.Unmarshal(data, &v) != nil {
			return nil
		}
		if m, ok := v.(map[string]any); ok {
			v = m[wrapperMember]
		}
		docs, _ = v.([]any)
	case FormatNDJSON:
		for _, line := range bytes.Split(data, []byte("\n")) {
			var v any
			if json.Unmarshal(line, &v) == nil {
				docs = append(docs, v)
			}
		}
	case FormatYAML:
		var v any
		if yaml.Unmarshal(data, &v) != nil {
			return nil
		}
		if m, ok := v.(map[string]any); ok {
			v = m[wrapperMember]
		}
		docs, _ = v.([]any)
	}
	var codes []string
	for _, d := range docs {
		m, _ := d.(map[string]any)
		for k, v := range m {
			if s, ok := v.(string); ok && strings.EqualFold(k, "wbsElementCode") {
				codes = append(codes, s)
			}
		}
	}
	return codes
}

// roundTrips checks that records written as format read back the same.
func roundTrips(t *testing.T, format Format, records []Record) {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, format, records); err != nil {
		t.Fatal(err)
	}
	back, err := Parse(&buf, format)
	if err != nil || len(back.Problems) > 0 || !sameRecords(records, back.Records) {
		t.Fatalf("clean records did not round-trip as %s: %v %v\n%+v\n%+v", format, err, back.Problems, records, back.Records)
	}
}

func must(s []string, _ error) []string { return s }

// A YAML file large enough to be read in pieces gives each record the
// line it starts on, and a problem in a later piece is reported as the
// whole file's reading reports it: on the file's own line, with nothing
// else lost.
func TestLargeYAMLKeepsItsLines(t *testing.T) {
	const n = 12000 // some 800 KB, four pieces
	var b strings.Builder
	b.WriteString("# an export\n")
	for i := range n {
		fmt.Fprintf(&b, "- wbsElementCode: B-%06d\n  description: \"line %d\"\n  isActive: true\n", i, 3*i+2)
	}
	good := b.String()
	if pieces := yamlPieces([]byte(good), yamlPieceBytes); len(pieces) < 3 {
		t.Fatalf("the file is cut into %d pieces; the test needs at least 3", len(pieces))
	}
	f, err := ParseBytes([]byte(good), FormatYAML, ReadOptions{})
	if err != nil || len(f.Problems) > 0 || len(f.Records) != n {
		t.Fatalf("read %d records, problems %v, %v", len(f.Records), f.Problems, err)
	}
	for i, r := range f.Records {
		if want := fmt.Sprintf("line %d", r.Line); r.Code != fmt.Sprintf("B-%06d", i) || *r.Description != want {
			t.Fatalf("record %d is %s at line %d, with description %q", i, r.Code, r.Line, *r.Description)
		}
	}

	bad := strings.Replace(good, "  isActive: true\n", "  isActive: true\n  colour: red\n", n-10)
	bad = strings.Replace(bad, "  colour: red\n", "", n-11) // only the one of record n-11 is left
	f, err = ParseBytes([]byte(bad), FormatYAML, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Problem{{Line: 3*(n-11) + 5, Code: fmt.Sprintf("B-%06d", n-11), Field: "colour", Message: "unknown member (known: wbsElementCode, description, isActive, businessOrganizations)"}}
	if !reflect.DeepEqual(f.Problems, want) || len(f.Records) != n-1 {
		t.Fatalf("problems %v and %d records; want %v and %d", f.Problems, len(f.Records), want, n-1)
	}
}

// What export --format yaml writes of ordinary records reads back as the records
// written, text that looks like another type or needs quoting among them.
func TestExportedYAMLReadsBack(t *testing.T) {
	desc := func(s string) *string { return &s }
	yes := true
	ordinary := append(exportRecords(),
		Record{Code: "B-000001", Texts: Texts{Description: desc("Site preparation, phase 1 (north) #2")}, IsActive: &yes, OrganizationsSet: true,
			Organizations: []sdk.BusinessOrganization{{Code: "1000", EntityType: "company"}, {Code: "B1", EntityType: "branch"}}},
		Record{Code: "X-1", Texts: Texts{Description: desc(`Büro: "a" #1 it's`)}, OrganizationsSet: true, Organizations: []sdk.BusinessOrganization{}},
		Record{Code: "null", Texts: Texts{Description: desc("~")}, OrganizationsSet: true, Organizations: []sdk.BusinessOrganization{{Code: "0x1F", EntityType: "1e3"}}},
		Record{Code: "- x", Texts: Texts{Description: desc("[a, b]")}, OrganizationsSet: true, Organizations: []sdk.BusinessOrganization{}},
	)
	var buf bytes.Buffer
	if err := Write(&buf, FormatYAML, ordinary); err != nil {
		t.Fatal(err)
	}
	back, err := ParseBytes(buf.Bytes(), FormatYAML, ReadOptions{})
	if err != nil || len(back.Problems) > 0 || !sameRecords(ordinary, back.Records) {
		t.Fatalf("read back as %+v, %v, %v from\n%s", back.Records, back.Problems, err, buf.Bytes())
	}

}
