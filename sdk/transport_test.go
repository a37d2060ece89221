package sdk_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
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
