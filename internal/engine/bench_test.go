package engine

// The work apply does for a file of 20,000 new elements, on the client's
// side alone: reading and checking the CSV, planning against an empty
// platform (one list read, in memory), and carrying out the creates over a
// transport that acknowledges each from memory.
//
//	go test -run '^$' -bench . -benchmem ./internal/engine

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/wbsctl/wbsctl/internal/ratelimit"
	"github.com/wbsctl/wbsctl/internal/wbsfile"
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
		f, err := wbsfile.Parse(bytes.NewReader(data), wbsfile.FormatCSV)
		if err != nil || len(f.Records) != 20000 {
			b.Fatal(err, len(f.Problems))
		}
	}
}

func BenchmarkPlanCreates(b *testing.B) {
	f, err := wbsfile.Parse(bytes.NewReader(benchCSV(20000)), wbsfile.FormatCSV)
	if err != nil {
		b.Fatal(err)
	}
	srv := wbstest.NewServer()
	b.Cleanup(srv.Close)
	c, err := sdk.NewClient(srv.URL, sdk.WithCredentials(srv.ClientID, srv.ClientSecret), sdk.WithHTTPClient(&http.Client{Transport: srv.Transport()}))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		plan, err := buildPlan(context.Background(), c, f.Records, PlanOptions{})
		if err != nil || len(plan.Changes) != 20000 {
			b.Fatal(err)
		}
	}
}

// ackTransport acknowledges every request, as the platform acknowledges a
// change.
type ackTransport struct{}

var ackBody = []byte(`{"correlationId":"0b9f6c1e-4f1a-4f7e-9a53-1c2d3e4f5a6b"}`)

func (ackTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	return &http.Response{StatusCode: http.StatusOK, ProtoMajor: 1, ProtoMinor: 1, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(bytes.NewReader(ackBody)), ContentLength: int64(len(ackBody)), Request: r}, nil
}

func BenchmarkExecuteCreates(b *testing.B) {
	f, err := wbsfile.Parse(bytes.NewReader(benchCSV(20000)), wbsfile.FormatCSV)
	if err != nil {
		b.Fatal(err)
	}
	plan := &Plan{Changes: make([]Change, len(f.Records))}
	for i := range f.Records {
		plan.Changes[i] = Change{Action: ActionCreate, Code: f.Records[i].Code, record: &f.Records[i]}
	}
	c, err := sdk.NewClient("https://platform.example", sdk.WithAccessToken("benchmark-token"), sdk.WithHTTPClient(&http.Client{Transport: ackTransport{}}), sdk.WithLimiter(ratelimit.New(0)))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		res := execute(context.Background(), c, plan, executeOptions{Concurrency: 4})
		if res.Len() != 20000 || res.At(0).Status != StatusOK || res.At(19999).Status != StatusOK {
			b.Fatal(res.At(0), res.At(19999))
		}
	}
}
