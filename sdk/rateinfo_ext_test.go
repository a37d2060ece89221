package sdk_test

import (
	"context"
	"testing"

	"github.com/wbsctl/wbsctl/sdk"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// A successful call tells what the platform said of the rate limit: an
// acknowledgement and a page carry the window's limit and what is left.
func TestSuccessfulCallsCarryTheRate(t *testing.T) {
	srv := wbstest.NewServer(wbstest.WithRateLimit(100))
	defer srv.Close()
	c, err := sdk.NewClient(srv.URL, sdk.WithCredentials(srv.ClientID, srv.ClientSecret))
	if err != nil {
		t.Fatal(err)
	}
	ack, err := c.WBSElements.Create(context.Background(), &sdk.CreateWBSElementRequest{Code: "R-1"})
	if err != nil || ack.Rate.Limit != 100 || ack.Rate.Remaining != 99 || ack.Rate.Reset.IsZero() {
		t.Fatalf("create: %v, rate %+v", err, ack.Rate)
	}
	page, err := c.WBSElements.List(context.Background(), nil)
	if err != nil || page.Rate.Limit != 100 || page.Rate.Remaining != 98 {
		t.Fatalf("list: %v, rate %+v", err, page.Rate)
	}
}
