package testing

import (
	"context"
	"testing"

	"github.com/wbsctl/wbsctl/sdk"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

func TestDeactivate(t *testing.T) {
	srv := wbstest.Start(t)
	srv.Put(
		wbstest.Element{Code: "OLD-1", IsActive: true},
		wbstest.Element{Code: "OLD-2", IsActive: false},
		wbstest.Element{Code: "NEW-1", IsActive: true},
	)
	// One update fails once with a reset connection: the SDK retries it.
	srv.AddFaults(wbstest.FaultRule{Operation: wbstest.OpUpdate, Kind: wbstest.FaultReset, Times: 1})
	c, _ := sdk.NewClient(srv.URL, sdk.WithCredentials(srv.ClientID, srv.ClientSecret))

	n, err := Deactivate(context.Background(), c, "OLD-")
	if err != nil || n != 1 {
		t.Fatalf("Deactivate = %d, %v; want 1", n, err)
	}
	if el, _ := srv.Element("OLD-1"); el.IsActive {
		t.Fatal("OLD-1 is still active")
	}
	if el, _ := srv.Element("NEW-1"); !el.IsActive {
		t.Fatal("NEW-1 was changed")
	}
	if got := srv.Stats().Requests[wbstest.OpUpdate]; got != 2 {
		t.Fatalf("%d update requests, want 2 (one reset, one retry)", got)
	}
}
