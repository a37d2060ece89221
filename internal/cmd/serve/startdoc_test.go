package serve

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/iostreams"
	"github.com/wbsctl/wbsctl/sdk"
)

// Under -o json, serve's start is one JSON document a script reads: the
// base URL and the made-up credential, which work.
func TestServeStartAsJSON(t *testing.T) {
	io, _, out, _ := iostreams.Test()
	f := cmdutil.New(io)
	f.Global.Output = "json"
	base, stop := start(t, &Options{Deps: f.Deps(), TokenLifetime: time.Hour, OrgUpdate: "merge", MaxPageSize: 100})
	defer stop()
	var doc struct{ BaseURL, ClientID, ClientSecret string }
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("serve -o json wrote no JSON document: %v\n%s", err, out)
	}
	if doc.BaseURL != base || doc.ClientID == "" || doc.ClientSecret == "" {
		t.Fatalf("start document %+v, base URL %s", doc, base)
	}
	c, err := sdk.NewClient(doc.BaseURL, sdk.WithCredentials(doc.ClientID, doc.ClientSecret))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.WBSElements.List(context.Background(), nil); err != nil {
		t.Fatalf("the document's credential does not work: %v", err)
	}
}
