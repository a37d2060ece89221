package engine

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/sdk"
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
		if err != nil || len(file.Problems) > 0 {
			return
		}
		roundTrips(t, format, file.Records)
	})
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
	want := []Problem{{Line: 3*(n-11) + 5, Field: "colour", Message: "unknown member (known: wbsElementCode, description, isActive, businessOrganizations)"}}
	if !reflect.DeepEqual(f.Problems, want) || len(f.Records) != n-1 {
		t.Fatalf("problems %v and %d records; want %v and %d", f.Problems, len(f.Records), want, n-1)
	}
}

// What export -o yaml writes of ordinary records is read a line at a time,
// without yaml.v3's scanner, and reads back as the records written, text
// that looks like another type or needs quoting among them.
func TestExportedYAMLIsReadByLines(t *testing.T) {
	desc := func(s string) *string { return &s }
	yes := true
	ordinary := append(exportRecords(),
		Record{Code: "B-000001", Description: desc("Site preparation, phase 1 (north) #2"), IsActive: &yes, OrganizationsSet: true,
			Organizations: []sdk.BusinessOrganization{{Code: "1000", EntityType: "company"}, {Code: "B1", EntityType: "branch"}}},
		Record{Code: "X-1", Description: desc(`Büro: "a" #1 it's`), OrganizationsSet: true, Organizations: []sdk.BusinessOrganization{}},
		Record{Code: "null", Description: desc("~"), OrganizationsSet: true, Organizations: []sdk.BusinessOrganization{{Code: "0x1F", EntityType: "1e3"}}},
		Record{Code: "- x", Description: desc("[a, b]"), OrganizationsSet: true, Organizations: []sdk.BusinessOrganization{}},
	)
	var buf bytes.Buffer
	if err := Write(&buf, FormatYAML, ordinary); err != nil {
		t.Fatal(err)
	}
	if _, ok := readBlockSequence(buf.Bytes()); !ok {
		t.Fatalf("not read by lines:\n%s", buf.Bytes())
	}
	back, err := ParseBytes(buf.Bytes(), FormatYAML, ReadOptions{})
	if err != nil || len(back.Problems) > 0 || !sameRecords(ordinary, back.Records) {
		t.Fatalf("read back as %+v, %v, %v from\n%s", back.Records, back.Problems, err, buf.Bytes())
	}

}
