package engine

// The work apply does before its first write, for a file of 20,000 new
// elements: reading and checking the CSV, and planning against an empty
// platform (one list read, in memory).
//
//	go test -run '^$' -bench . -benchmem ./internal/engine

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/wbsctl/wbsctl/sdk"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

func benchCSV(n int) []byte {
	var b bytes.Buffer
	b.WriteString("wbsElementCode,description,isActive\n")
	for i := range n {
		fmt.Fprintf(&b, "B-%06d,element %d,true\n", i, i)
	}
	return b.Bytes()
}

func BenchmarkParseCSV(b *testing.B) {
	data := benchCSV(20000)
	b.ReportAllocs()
	for b.Loop() {
		f, err := Parse(bytes.NewReader(data), FormatCSV)
		if err != nil || len(f.Records) != 20000 {
			b.Fatal(err, len(f.Problems))
		}
	}
}

func BenchmarkPlanCreates(b *testing.B) {
	f, err := Parse(bytes.NewReader(benchCSV(20000)), FormatCSV)
	if err != nil {
		b.Fatal(err)
	}
	srv := wbstest.NewServer()
	b.Cleanup(srv.Close)
	c, err := sdk.NewClient(srv.URL, sdk.WithCredentials(srv.ClientID, srv.ClientSecret), sdk.WithTransport(srv.Transport()))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		plan, err := BuildPlan(context.Background(), c, f.Records, PlanOptions{})
		if err != nil || len(plan.Changes) != 20000 {
			b.Fatal(err)
		}
	}
}
