package state_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wbsctl/wbsctl/internal/cmd/cmdtest"
	"github.com/wbsctl/wbsctl/internal/statestore"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// state show tells what a person needs of a state: its platform, lineage,
// serial and elements, and who holds its lock while a run does; as a
// line each, or a document with -o json.
func TestStateShow(t *testing.T) {
	srv := wbstest.NewServer()
	defer srv.Close()
	dir := t.TempDir()
	file, state := filepath.Join(dir, "elements.csv"), filepath.Join(dir, "state")
	os.WriteFile(file, []byte("wbsElementCode,description\nP-1,a\nP-2,b\nP-3,c\n"), 0o600)
	if res := (cmdtest.Run{}).Do(t, srv, "apply", "-f", file, "--state", state, "--rate", "0"); res.Code != 0 {
		t.Fatalf("apply: %d %s", res.Code, res.ErrOut)
	}
	res := (cmdtest.Run{}).Do(t, srv, "state", "show", state)
	for _, want := range []string{"platform: " + srv.URL + " as " + srv.ClientID, "serial:   2", "elements: 3", "lock:     not held"} {
		if res.Code != 0 || !strings.Contains(res.Out, want) {
			t.Errorf("state show: exit %d, no %q in:\n%s%s", res.Code, want, res.Out, res.ErrOut)
		}
	}
	holder := statestore.NewHolder("apply -f other.csv", "https://ci.example/jobs/7", time.Now())
	lease, err := statestore.NewFile(state).Lock(context.Background(), holder, 0)
	if err != nil {
		t.Fatal(err)
	}
	unlock := func() { lease.Release(context.Background()) }
	defer unlock()
	res = (cmdtest.Run{}).Do(t, srv, "state", "show", state, "-o", "json")
	var doc struct {
		Lineage string
		Serial  int
		Lock    *statestore.Holder
	}
	if err := json.Unmarshal([]byte(res.Out), &doc); err != nil || res.Code != 0 {
		t.Fatalf("-o json: exit %d %v:\n%s%s", res.Code, err, res.Out, res.ErrOut)
	}
	if doc.Lineage == "" || doc.Serial != 2 || doc.Lock == nil || doc.Lock.ID != holder.ID || doc.Lock.JobURL != holder.JobURL {
		t.Fatalf("-o json: %+v, want the lineage, serial 2 and the lock of %+v", doc, holder)
	}
	if res := (cmdtest.Run{}).Do(t, srv, "state", "show", filepath.Join(dir, "none")); res.Code == 0 || !strings.Contains(res.ErrOut, "no state there") {
		t.Fatalf("a missing state: exit %d %s", res.Code, res.ErrOut)
	}
}
