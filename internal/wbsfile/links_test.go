package wbsfile

import (
	"slices"
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/sdk"
)

func TestParsedRecordsShareTheirLinks(t *testing.T) {
	csv := "wbsElementCode,businessOrganizations\nA,company=1000;branch=B1\nB,company=1000;branch=B1\nC,company=1000\nC,branch=B2\n"
	f, err := Parse(strings.NewReader(csv), FormatCSV)
	if err != nil || len(f.Problems) > 0 {
		t.Fatal(err, f.Problems)
	}
	a, b, c := f.Records[0].Organizations, f.Records[1].Organizations, f.Records[2].Organizations
	if &a[0] != &b[0] {
		t.Error("two records with the same links hold two lists")
	}
	want := []sdk.BusinessOrganization{{EntityType: "company", Code: "1000"}, {EntityType: "branch", Code: "B2"}}
	if !slices.Equal(c, want) {
		t.Errorf("C's rows give %v, want %v", c, want)
	}
}
