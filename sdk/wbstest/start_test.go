package wbstest

import (
	"net/http"
	"testing"
)

// Start's server answers while the test that started it runs, and is
// closed once that test has ended.
func TestStartClosesWhenTheTestEnds(t *testing.T) {
	t.Parallel()
	// A connection of its own each time, so that a kept-alive one to a
	// closed server cannot answer.
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	var url string
	t.Run("started", func(t *testing.T) {
		srv := Start(t)
		url = srv.URL
		resp, err := client.Post(url+"/v1/auth/tokens", "application/json", nil)
		if err != nil {
			t.Fatalf("while the test runs: %v", err)
		}
		resp.Body.Close()
	})
	if resp, err := client.Post(url+"/v1/auth/tokens", "application/json", nil); err == nil {
		resp.Body.Close()
		t.Fatalf("after the test: %s answered %s, want no server", url, resp.Status)
	}
}
