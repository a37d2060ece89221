package sdk_test

// The SDK's own cost per call, without a server or a network: the same
// call made through the SDK and through a plain net/http client, both over
// a transport that answers from memory. What remains between the two is
// the client's work (validation, JSON, headers, the per-attempt timeout,
// retry and rate bookkeeping, the page's fingerprint), which a real server
// and network only hide.
//
//	go test -run '^$' -bench Overhead -benchmem -count 5 ./sdk

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/wbsctl/wbsctl/sdk"
)

// cannedTransport answers every request with the same status and body.
type cannedTransport struct {
	body   []byte
	header http.Header
	// chunked leaves the length unannounced, as a Go server does for a
	// body above a few KiB.
	chunked bool
}

func (t *cannedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	length := int64(len(t.body))
	if t.chunked {
		length = -1
	}
	return &http.Response{
		StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: t.header, Body: io.NopCloser(bytes.NewReader(t.body)), ContentLength: length, Request: r,
	}, nil
}

func BenchmarkOverheadCreate(b *testing.B) {
	rt := &cannedTransport{
		body:   []byte(`{"correlationId":"0b9f6c1e-4f1a-4f7e-9a53-1c2d3e4f5a6b"}`),
		header: http.Header{"Content-Type": {"application/json"}, "Ratelimit-Remaining": {"239"}, "Ratelimit-Reset": {"60"}},
	}
	ctx := context.Background()
	desc, active := "baseline", true
	b.Run("sdk", func(b *testing.B) {
		c := cannedClient(b, rt)
		b.ReportAllocs()
		for b.Loop() {
			ack, err := c.WBSElements.Create(ctx, &sdk.CreateWBSElementRequest{Code: "B-000001", Description: &desc, IsActive: &active})
			if err != nil || ack.CorrelationID == "" {
				b.Fatal(err)
			}
		}
	})
	b.Run("raw", func(b *testing.B) {
		hc := &http.Client{Transport: rt}
		b.ReportAllocs()
		for b.Loop() {
			rawSend(b, hc, "POST", "https://platform.example/v1/wbs-elements", "benchmark-token",
				map[string]any{"wbsElementCode": "B-000001", "description": "baseline", "isActive": true})
		}
	})
}

func BenchmarkOverheadList(b *testing.B) {
	rt := &cannedTransport{body: sdk.BenchPageBody(), header: http.Header{"Content-Type": {"application/json"}}, chunked: true}
	b.Run("sdk", func(b *testing.B) {
		c := cannedClient(b, rt)
		b.ReportAllocs()
		for b.Loop() {
			sdkList(b, c, 50)
		}
	})
	b.Run("raw", func(b *testing.B) {
		hc := &http.Client{Transport: rt}
		b.ReportAllocs()
		for b.Loop() {
			rawList(b, hc, "https://platform.example/v1/wbs-elements?pageSize=50", "benchmark-token", 50)
		}
	})
}

// cannedClient is a client of rt with a static token.
func cannedClient(b *testing.B, rt http.RoundTripper) *sdk.Client {
	c, err := sdk.NewClient("https://platform.example", sdk.WithAccessToken("benchmark-token"), sdk.WithHTTPClient(&http.Client{Transport: rt}))
	if err != nil {
		b.Fatal(err)
	}
	return c
}
