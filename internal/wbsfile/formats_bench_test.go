package wbsfile

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wbsctl/wbsctl/sdk"
)

// benchFile is n records with two links each in format f, as a user's
// export of them would be written: JSON indented, NDJSON a record a line,
// YAML a sequence of mappings, CSV with an organizations column, a
// workbook as export writes it (the CSV's records).
func benchFile(f Format, n int) []byte {
	var b bytes.Buffer
	switch f {
	case FormatXLSX:
		file, err := ParseBytes(benchFile(FormatCSV, n), FormatCSV, ReadOptions{})
		if err != nil || len(file.Problems) > 0 {
			panic(fmt.Sprint(err, file.Problems))
		}
		if err := Write(&b, FormatXLSX, file.Records); err != nil {
			panic(err)
		}
	case FormatCSV:
		b.WriteString("wbsElementCode,description,isActive,businessOrganizations\n")
		for i := range n {
			fmt.Fprintf(&b, "B-%06d,element %d,true,company=1000;branch=B%d\n", i, i, i%50)
		}
	case FormatJSON:
		b.WriteString("[\n")
		for i := range n {
			sep := ","
			if i == n-1 {
				sep = ""
			}
			fmt.Fprintf(&b, "  {\n    \"wbsElementCode\": \"B-%06d\",\n    \"description\": \"element %d\",\n    \"isActive\": true,\n"+
				"    \"businessOrganizations\": [\n      {\n        \"code\": \"1000\",\n        \"entityType\": \"company\"\n      },\n"+
				"      {\n        \"code\": \"B%d\",\n        \"entityType\": \"branch\"\n      }\n    ]\n  }%s\n", i, i, i%50, sep)
		}
		b.WriteString("]\n")
	case FormatNDJSON:
		for i := range n {
			fmt.Fprintf(&b, `{"wbsElementCode":"B-%06d","description":"element %d","isActive":true,"businessOrganizations":[{"code":"1000","entityType":"company"},{"code":"B%d","entityType":"branch"}]}`+"\n", i, i, i%50)
		}
	case FormatYAML:
		for i := range n {
			fmt.Fprintf(&b, "- wbsElementCode: B-%06d\n  description: element %d\n  isActive: true\n  businessOrganizations:\n"+
				"    - code: \"1000\"\n      entityType: company\n    - code: B%d\n      entityType: branch\n", i, i, i%50)
		}
	}
	return b.Bytes()
}

// BenchmarkParseFormats reads the same 20,000 records with links in each
// format, as apply reads them before its first request: from the file's
// bytes (ParseBytes; apply reads the file into a buffer of its size
// itself), checks included. scripts/bench prints its medians as rows of
// docs/benchmarks.md, each with its ratio to CSV's.
//
//	go test -run '^$' -bench ParseFormats -count 6 ./internal/wbsfile
func BenchmarkParseFormats(b *testing.B) {
	for _, f := range []Format{FormatCSV, FormatJSON, FormatNDJSON, FormatYAML, FormatXLSX} {
		data := benchFile(f, 20000)
		b.Run(string(f), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				file, err := ParseBytes(data, f, ReadOptions{})
				if err != nil || len(file.Records) != 20000 || len(file.Records[19999].Organizations) != 2 {
					b.Fatal(err, file.Problems)
				}
			}
		})
	}
}

// The fast readers that BenchmarkParseFormats measures (jsonArrayFast, the
// scanner of ndjson, yamlFast) are held here to the strict readers, which
// they hand every file or record they decline to.

// parseStrict is ParseBytes with the strict readers alone: jsontext and
// strictjson for JSON and NDJSON, yaml.v3 for YAML.
func parseStrict(data []byte, f Format) *File {
	p := &parser{file: &File{}}
	data, ok := p.text(data, f)
	if !ok {
		return p.file
	}
	switch f {
	case FormatJSON:
		p.check(p.jsonArrayStrict(data))
	case FormatNDJSON:
		p.check(p.ndjsonStrict(data))
	case FormatYAML:
		p.check(p.yamlStrict(data))
	}
	return p.file
}

// agree fails t unless ParseBytes of data gives what the strict readers
// give: the records, lines and all, the problems, the records left out.
// It reports whether the fast reader read data.
func agree(t *testing.T, data []byte, f Format) (fast bool) {
	t.Helper()
	got, err := ParseBytes(data, f, ReadOptions{})
	if err != nil {
		return false
	}
	if text, ok := (&parser{file: &File{}}).text(data, f); ok {
		switch f {
		case FormatJSON:
			_, _, fast = jsonArrayFast(text)
		case FormatNDJSON:
			fast = true // line by line
		case FormatYAML:
			_, fast = yamlFast(text)
		}
	}
	want := parseStrict(data, f)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: read as\n%s\nthe strict reader reads\n%s\nthe file:\n%s", f, describe(got), describe(want), data)
	}
	return fast
}

func describe(file *File) string {
	var b strings.Builder
	for _, r := range file.Records {
		fmt.Fprintf(&b, "  %d %q %v %v %v %v\n", r.Line, r.Code, fmtPtr(r.Description), fmtPtr(r.IsActive), r.Organizations, r.OrganizationsSet)
	}
	for _, p := range file.Problems {
		fmt.Fprintf(&b, "  problem %s\n", p)
	}
	fmt.Fprintf(&b, "  invalid %+v, codes %q, code unknown %v\n", file.Invalid, file.InvalidCodes, file.CodeUnknown)
	return b.String()
}

func fmtPtr[T any](p *T) string {
	if p == nil {
		return "nil"
	}
	return fmt.Sprintf("%#v", *p)
}

// The fast readers read the benchmark's files and what export writes; and
// those files, each line changed in each of many ways, read to the same
// records, lines and problems as the strict readers read them, whether the
// fast readers read them or decline them.
func TestFastReadersAgree(t *testing.T) {
	json := benchFile(FormatJSON, 3)
	if recs, problems, ok := jsonArrayFast(json); !ok || len(problems) > 0 || len(recs) != 3 {
		t.Fatalf("jsonArrayFast declines the benchmark's file: %v %v", ok, problems)
	}
	yml := benchFile(FormatYAML, 3)
	if recs, ok := yamlFast(yml); !ok || len(recs) != 3 {
		t.Fatal("yamlFast declines the benchmark's file")
	}
	var exported bytes.Buffer
	if err := Write(&exported, FormatYAML, []Record{
		{Code: "1000", Texts: Texts{Description: new("")}, IsActive: new(false), Organizations: []sdk.BusinessOrganization{}, OrganizationsSet: true},
		{Code: "A 1", Texts: Texts{Description: new("Müller: 'x' #1")}, Organizations: []sdk.BusinessOrganization{{Code: "001", EntityType: "company"}}, OrganizationsSet: true},
	}); err != nil {
		t.Fatal(err)
	}
	if _, ok := yamlFast(exported.Bytes()); !ok {
		t.Fatalf("yamlFast declines what export writes:\n%s", exported.Bytes())
	}
	ndjson := benchFile(FormatNDJSON, 3)
	for i, line := range bytes.Split(bytes.TrimSpace(ndjson), []byte("\n")) {
		s := jsonScanner{data: line}
		if _, ok := s.record(i + 1); !ok || s.i != len(line) {
			t.Fatalf("the scanner declines the NDJSON line %s", line)
		}
	}
	compact := []byte(strings.ReplaceAll(string(benchFile(FormatNDJSON, 3)), "}\n{", "},{"))
	compact = []byte("[" + strings.TrimSpace(string(compact)) + "]")
	indentless := []byte(strings.ReplaceAll(strings.ReplaceAll(string(yml), "    - ", "  - "), "      entityType", "    entityType"))
	// Each change is made to one line at a time, at its first match.
	changes := [][2]string{
		{"", ""}, // the line left out
		{"\n", "\n\n"}, {"\n", "\r\n"}, {"\n", " # note\n"}, {"\n", "\n# note\n"}, {"\n", "\n  # note\n"},
		{"\n", "\n    more\n"}, {"\n", "\n   more\n"}, {"\n", "\n  more: 1\n"}, {"\n", "\t\n"},
		{"B-", "B\\u002d"}, {"B-", "B\\-"}, {"B-", "B\"-"}, {"B-", "B'-"}, {"B-", "Bé-"}, {"B-", "B\u0085-"}, {"B-", "B\u2028-"},
		{"B-", "B: -"}, {"B-", "B #-"}, {"B-", "#B-"}, {"B-", "&a B-"}, {"B-", "*a"}, {"B-", "!!str B-"}, {"B-", "- B-"},
		{"B-", "1"}, {"B-", "~"}, {"B-", ""}, {"B-", "\x7f"}, {"B-", "\ufeff"}, {"B-0", "10"},
		{`"B-`, `null, "x": "B-`}, {`"B-`, `1, "x": "B-`}, {`"B-000001"`, `null`}, {`"B-000001"`, `1`}, {`"B-000001"`, `"1000"`},
		{"wbsElementCode", "wbselementcode"}, {"wbsElementCode", "code"}, {"wbsElementCode", "description"}, {"wbsElementCode: ", "wbsElementCode:"},
		{"wbsElementCode\": ", "wbsElementCode\" : "}, {"description", "isActive"}, {"description", "businessOrganizations"},
		{"element", `"element"`}, {"element", `'element'`}, {"element", `'it''s'`}, {"element", `"say \"x\""`}, {"element", `""`},
		{"element 1", "null"}, {"element 1", "~"}, {"element 1", ""}, {"element 1", "Null"}, {"element 1", "12"}, {"element 1", "yes"},
		{"element 1", "a: b"}, {"element 1", "a:"}, {"element 1", "a #b"}, {"element 1", "a#b"}, {"element 1", "|"}, {"element 1", ">"},
		{"element 1", "[x]"}, {"element 1", "{x: y}"}, {"element 1", "%x"}, {"element 1", "@x"}, {"element 1", "`x"}, {"element 1", "\"open"},
		{"element 1\"", "element 1\\n\""}, {"element 1\"", "\\ud800\""},
		{"true", "false"}, {"true", "null"}, {"true", "True"}, {"true", "TRUE"}, {"true", "FALSE"}, {"true", "~"}, {"true", ""},
		{"true", "yes"}, {"true", "\"true\""}, {"true", "'false'"}, {"true", "1"}, {"true", "tru"}, {"true", "truex"}, {"true", "true true"},
		{"true", "[]"}, {"true", "true, \"isActive\": true"},
		{"businessOrganizations", "organizations"}, {"businessOrganizations: ", "businessOrganizations: [] "},
		{"businessOrganizations\": [", "businessOrganizations\": null, \"x\": ["}, {"businessOrganizations\": [", "businessOrganizations\": [], \"x\": ["},
		{"businessOrganizations:", "businessOrganizations: []"}, {"businessOrganizations:", "businessOrganizations: ~"},
		{"[{", "[{}, {"}, {"[{", "[null, {"}, {"},{", "}, {"},
		{"code", "Code"}, {"code", "entityType"}, {"code\":", "code\": null, \"c\":"}, {"code: \"1000\"", "code: 1000"}, {"code: \"1000\"", "code: \"\""},
		{"code: \"1000\"", "code:"}, {"code: \"1000\"", "code: ~"}, {"code: \"1000\"", "code: [1]"}, {`"code": "1000"`, `"code": 1000`},
		{"entityType", "entity"}, {"company", "company, \"code\": \"2\""}, {"company", "\"company\""},
		{"- code", "-  code"}, {"- code", "-\n      code"}, {"- code", "- - code"}, {"    - ", "  - "}, {"    - ", "   - "},
		{"      entityType", "     entityType"}, {"      entityType", "        entityType"},
		{"- wbs", "-  wbs"}, {"- wbs", "-\n  wbs"}, {"- wbs", "  - wbs"}, {"- wbs", "---\n- wbs"}, {"- wbs", "...\n- wbs"}, {"- wbs", "%YAML 1.2\n- wbs"},
		{"  description", "   description"}, {"  description", " description"}, {"  description", "description"}, {"  description", "  - description"},
		{"[", "{\"wbsElements\": ["}, {"[", "[,"}, {"[", "[]["}, {"]", "],"}, {"]", "] x"}, {"]", ""}, {"}", "},"}, {"}", "}}"}, {"{", "{{"},
		{",", ""}, {",", ",,"}, {":", ""}, {"\"", ""},
	}
	read := map[Format][2]int{} // the files each format's fast reader declined and read
	for _, c := range []struct {
		f    Format
		data []byte
	}{{FormatJSON, json}, {FormatJSON, compact}, {FormatNDJSON, ndjson}, {FormatYAML, yml}, {FormatYAML, indentless}, {FormatYAML, exported.Bytes()}} {
		if !agree(t, c.data, c.f) {
			t.Fatalf("the fast reader declines\n%s", c.data)
		}
		lines := strings.SplitAfter(string(c.data), "\n")
		for i := range lines {
			for _, ch := range changes {
				if ch[0] != "" && !strings.Contains(lines[i], ch[0]) {
					continue
				}
				changed := slices.Clone(lines)
				if ch[0] == "" {
					changed[i] = ""
				} else {
					changed[i] = strings.Replace(lines[i], ch[0], ch[1], 1)
				}
				n := read[c.f]
				if agree(t, []byte(strings.Join(changed, "")), c.f) {
					n[1]++
				} else {
					n[0]++
				}
				read[c.f] = n
			}
		}
	}
	// More problems than a file reports are reported as the strict
	// reader goes, not held.
	many := []byte(strings.ReplaceAll(string(benchFile(FormatJSON, maxProblems+5)), `"isActive"`, `"active"`))
	if agree(t, many, FormatJSON) {
		t.Error("jsonArrayFast holds more problems than a file reports")
	}
	t.Logf("files declined and read by the fast readers: %v", read)
	for _, f := range []Format{FormatJSON, FormatYAML} {
		if read[f][0] < 300 || read[f][1] < 300 {
			t.Errorf("%s: %d files declined, %d read: the changes miss one reader or the other", f, read[f][0], read[f][1])
		}
	}
}

// FuzzFastReaders: any file reads to what the strict readers read.
func FuzzFastReaders(f *testing.F) {
	formats := []Format{FormatJSON, FormatNDJSON, FormatYAML}
	for i, format := range formats {
		f.Add(benchFile(format, 3), uint8(i))
	}
	for _, name := range append(must(filepath.Glob("testdata/good/*")), must(filepath.Glob("testdata/bad/*"))...) {
		format, err := DetectFormat(name, "")
		if b, rerr := os.ReadFile(name); err == nil && rerr == nil && slices.Contains(formats, format) {
			f.Add(b, uint8(slices.Index(formats, format)))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		agree(t, data, formats[int(which)%len(formats)])
	})
}

// BenchmarkParseMillion reads 1,000,000 records with links as CSV and as
// a workbook, as BenchmarkParseFormats reads 20,000, and reports the peak
// heap of a read (peak-MiB) beside its time. scripts/bench prints the
// workbook's ratios to CSV's as a row of docs/benchmarks.md. Making the
// workbook takes most of a minute.
//
//	go test -run '^$' -bench ParseMillion -benchtime 1x -count 3 ./internal/wbsfile
func BenchmarkParseMillion(b *testing.B) {
	const n = 1_000_000
	csv := benchFile(FormatCSV, n)
	for _, in := range []struct {
		f    Format
		data func() []byte
	}{{FormatCSV, func() []byte { return csv }}, {FormatXLSX, func() []byte { return benchFile(FormatXLSX, n) }}} {
		data := in.data()
		b.Run(string(in.f), func(b *testing.B) {
			var peak uint64
			for b.Loop() {
				stop := heapPeak()
				file, err := ParseBytes(data, in.f, ReadOptions{})
				peak = max(peak, stop())
				if err != nil || len(file.Records) != n || len(file.Records[n-1].Organizations) != 2 {
					b.Fatal(err, file.Problems)
				}
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
		})
	}
}

// heapPeak samples the heap in use every millisecond until the function
// it returns is called, which gives the peak's growth over the heap at
// the start.
func heapPeak() func() uint64 {
	runtime.GC()
	var start runtime.MemStats
	runtime.ReadMemStats(&start)
	var high atomic.Uint64
	done, sampled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampled)
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			high.Store(max(high.Load(), m.HeapInuse))
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	return func() uint64 {
		close(done)
		<-sampled
		return high.Load() - min(high.Load(), start.HeapInuse)
	}
}
