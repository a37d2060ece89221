package sdk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/wbsctl/wbsctl/sdk"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// Concurrent calls reuse their connections: net/http's default transport
// keeps two idle connections to a host and would dial anew for most
// requests of eight workers.
func TestConcurrentCallsReuseConnections(t *testing.T) {
	srv := wbstest.NewServer()
	t.Cleanup(srv.Close)
	var dialled atomic.Int64
	ts := httptest.NewUnstartedServer(srv)
	ts.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			dialled.Add(1)
		}
	}
	ts.Start()
	t.Cleanup(ts.Close)
	c, err := sdk.NewClient(ts.URL, sdk.WithCredentials(srv.ClientID, srv.ClientSecret))
	if err != nil {
		t.Fatal(err)
	}
	const workers, each = 16, 50
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				req := &sdk.CreateWBSElementRequest{Code: fmt.Sprintf("W%d-%03d", w, i), IsActive: sdk.Ptr(true)}
				if _, err := c.WBSElements.Create(context.Background(), req); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	// One connection a worker, and as many again at most: a worker may
	// dial while another's connection is on its way back to the pool.
	if n := dialled.Load(); n > 2*workers {
		t.Errorf("%d connections dialled for %d requests of %d workers, want at most %d", n, workers*each, workers, 2*workers)
	}
}

// keptBodyTransport answers at once and keeps the request bodies unread,
// as net/http may go on reading a body after an early answer.
type keptBodyTransport struct{ bodies []io.Reader }

func (t *keptBodyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	t.bodies = append(t.bodies, r.Body)
	return &http.Response{StatusCode: http.StatusOK, ProtoMajor: 1, ProtoMinor: 1, Request: r,
		Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(`{}`)), ContentLength: 2}, nil
}

// A body the caller owns may change once the call returns; what is sent
// is what the call was given.
func TestCallerBodiesAreSentAsGiven(t *testing.T) {
	rt := &keptBodyTransport{}
	c, err := sdk.NewClient("https://platform.example", sdk.WithAccessToken("test-token"), sdk.WithHTTPClient(&http.Client{Transport: rt}))
	if err != nil {
		t.Fatal(err)
	}
	raw := []byte(`{"order":1}`)
	if _, err := c.Do(context.Background(), &sdk.RawRequest{Method: "POST", Path: "/v1/orders", Body: raw}); err != nil {
		t.Fatal(err)
	}
	input := json.RawMessage(`{"input":1}`)
	if _, err := c.Flows.Execute(context.Background(), "flow-1", input); err != nil {
		t.Fatal(err)
	}
	copy(raw, `{"order":2}`)
	copy(input, `{"input":2}`)
	for i, want := range []string{`{"order":1}`, `{"input":1}`} {
		got, err := io.ReadAll(rt.bodies[i])
		if err != nil || string(got) != want {
			t.Errorf("body %d sent as %q (%v), want %q", i, got, err, want)
		}
	}
}
