package wbsfile

import (
	"bytes"
	"fmt"
	"testing"
)

// benchFile is n records with two links each in format f, as a user's
// export of them would be written: JSON indented, NDJSON a record a line,
// YAML a sequence of mappings, CSV with an organizations column.
func benchFile(f Format, n int) []byte {
	var b bytes.Buffer
	switch f {
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
// format, as apply's dry run does before its first request: the readers'
// part of the dry runs that docs/benchmarks.md's table times whole.
//
//	go test -run '^$' -bench ParseFormats -count 6 ./internal/wbsfile
func BenchmarkParseFormats(b *testing.B) {
	for _, f := range []Format{FormatCSV, FormatJSON, FormatNDJSON, FormatYAML} {
		data := benchFile(f, 20000)
		b.Run(string(f), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				file, err := Parse(bytes.NewReader(data), f)
				if err != nil || len(file.Records) != 20000 || len(file.Records[19999].Organizations) != 2 {
					b.Fatal(err, file.Problems)
				}
			}
		})
	}
}
