package sdk_test

// The SDK's cost per operation against a plain net/http client doing the
// same work (bearer header, JSON body, decoding) on the same in-process
// reference server. Run side by side:
//
//	go test -run '^$' -bench . -benchmem -count 5 ./sdk

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/wbsctl/wbsctl/sdk"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

func benchServer(b *testing.B) (*wbstest.Server, *sdk.Client, string) {
	srv := wbstest.NewServer()
	b.Cleanup(srv.Close)
	for i := range 50 {
		d := fmt.Sprintf("element %d", i)
		srv.Put(wbstest.Element{Code: fmt.Sprintf("E%03d", i), Description: &d, IsActive: true})
	}
	c, err := sdk.NewClient(srv.URL, sdk.WithCredentials(srv.ClientID, srv.ClientSecret))
	if err != nil {
		b.Fatal(err)
	}
	tok, err := c.Token(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	return srv, c, tok.AccessToken
}

func BenchmarkList(b *testing.B) {
	srv, c, tok := benchServer(b)
	b.Run("sdk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sdkList(b, c, 50)
		}
	})
	b.Run("raw", func(b *testing.B) {
		b.ReportAllocs()
		hc := &http.Client{}
		for b.Loop() {
			rawList(b, hc, srv.URL+"/v1/wbs-elements?pageSize=50", tok, 50)
		}
	})
}

func BenchmarkUpdate(b *testing.B) {
	srv, c, tok := benchServer(b)
	ctx := context.Background()
	req := &sdk.UpdateWBSElementRequest{Description: sdk.Set("changed"), IsActive: sdk.Set(true)}
	b.Run("sdk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.WBSElements.Update(ctx, "E001", req); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("raw", func(b *testing.B) {
		b.ReportAllocs()
		hc := &http.Client{}
		for b.Loop() {
			rawSend(b, hc, "PUT", srv.URL+"/v1/wbs-elements/E001", tok, req)
		}
	})
}

// created numbers the codes of BenchmarkCreate, which runs its loops more
// than once against one server.
var created atomic.Int64

func BenchmarkCreate(b *testing.B) {
	srv, c, tok := benchServer(b)
	ctx := context.Background()
	b.Run("sdk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			i := created.Add(1)
			req := &sdk.CreateWBSElementRequest{Code: fmt.Sprintf("S-%08d", i), Description: sdk.Ptr("created"), IsActive: sdk.Ptr(true)}
			if _, err := c.WBSElements.Create(ctx, req); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("raw", func(b *testing.B) {
		b.ReportAllocs()
		hc := &http.Client{}
		for b.Loop() {
			i := created.Add(1)
			req := &sdk.CreateWBSElementRequest{Code: fmt.Sprintf("R-%08d", i), Description: sdk.Ptr("created"), IsActive: sdk.Ptr(true)}
			rawSend(b, hc, "POST", srv.URL+"/v1/wbs-elements", tok, req)
		}
	})
}

// sdkList is the SDK's read of a list page of want items.
func sdkList(b *testing.B, c *sdk.Client, want int) {
	p, err := c.WBSElements.List(context.Background(), &sdk.ListOptions{PageSize: want})
	if err != nil || len(p.Data) != want {
		b.Fatal(err)
	}
}

// rawList is the plain client's read of a list page of want items: a
// bearer header, the envelope decoded.
func rawList(b *testing.B, hc *http.Client, url, tok string, want int) {
	req, _ := http.NewRequestWithContext(context.Background(), "GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := hc.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	var page struct {
		Data []sdk.WBSElement `json:"data"`
		Hits *int             `json:"hits"`
		Next *string          `json:"next"`
	}
	err = json.NewDecoder(resp.Body).Decode(&page)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil || len(page.Data) != want {
		b.Fatal(err)
	}
}

// rawSend is the plain client's write: the body marshalled, a bearer
// header, the acknowledgement decoded.
func rawSend(b *testing.B, hc *http.Client, method, url, tok string, v any) {
	body, _ := json.Marshal(v)
	r, _ := http.NewRequestWithContext(context.Background(), method, url, bytes.NewReader(body))
	r.Header.Set("Authorization", "Bearer "+tok)
	r.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(r)
	if err != nil {
		b.Fatal(err)
	}
	var ack sdk.Acknowledgement
	err = json.NewDecoder(resp.Body).Decode(&ack)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode/100 != 2 {
		b.Fatal(err, resp.StatusCode)
	}
}
