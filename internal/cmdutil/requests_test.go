package cmdutil

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/internal/iostreams"
	"github.com/wbsctl/wbsctl/sdk"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// The count is of what went out: a token exchange, reads and writes by
// kind, and a 429 among them, for a platform under a path of its host.
func TestRequestsAreCountedAsSent(t *testing.T) {
	srv := wbstest.Start(t, wbstest.WithRateLimit(2))
	front := httptest.NewServer(http.StripPrefix("/api", srv))
	defer front.Close()
	io, _, _, _ := iostreams.Test()
	f := New(io)
	env := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "XDG_CACHE_HOME": t.TempDir()}
	f.Getenv = func(k string) string { return env[k] }
	f.ClientOptions = []sdk.Option{sdk.WithRetryPolicy(sdk.RetryPolicy{MaxAttempts: 1})}
	c, err := f.ClientFor(&Credentials{BaseURL: front.URL + "/api", ClientID: srv.ClientID, Secret: srv.ClientSecret})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := c.WBSElements.Create(ctx, &sdk.CreateWBSElementRequest{Code: "A"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WBSElements.List(ctx, nil); err != nil {
		t.Fatal(err)
	}
	var apiErr *sdk.APIError
	if _, err := c.WBSElements.List(ctx, nil); !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("the third call: %v, want a 429", err)
	}
	want := RequestCounts{Sent: 4, Reads: 2, Writes: 1, Tokens: 1, Throttled: 1}
	if got := f.Requests(); got != want {
		t.Fatalf("counted %+v, want %+v", got, want)
	}
	if !strings.HasSuffix(tokenPath("/api/"), "/api/v1/auth/tokens") {
		t.Fatalf("token path %q", tokenPath("/api/"))
	}
}
