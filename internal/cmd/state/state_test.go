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
	"github.com/wbsctl/wbsctl/internal/statestore/s3test"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// state show tells what a person needs of a state: its platform, lineage,
// serial and elements, and who holds its lock while a run does; as a
// line each, or a document with -o json.
func TestStateShow(t *testing.T) {
	srv := wbstest.Start(t)
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

// state push starts a shared state from a local one and state pull
// copies it back, byte for byte; push refuses another platform's state,
// and, unless --force, an older copy over a newer state.
func TestStatePushAndPull(t *testing.T) {
	srv := wbstest.Start(t)
	dir := t.TempDir()
	file, local := filepath.Join(dir, "elements.csv"), filepath.Join(dir, "state")
	os.WriteFile(file, []byte("wbsElementCode,description\nP-1,a\nP-2,b\n"), 0o600)
	if res := (cmdtest.Run{}).Do(t, srv, "apply", "-f", file, "--state", local, "--rate", "0"); res.Code != 0 {
		t.Fatalf("apply: %d %s", res.Code, res.ErrOut)
	}
	s3test.Env(t)
	url := s3test.Start(t, "prod/wbs.state")
	if res := (cmdtest.Run{}).Do(t, srv, "state", "push", local, url); res.Code != 0 || !strings.Contains(res.ErrOut, "serial 2, 2 elements") {
		t.Fatalf("push: %d %s", res.Code, res.ErrOut)
	}
	// A run on the shared state moves it on: the local copy is older.
	os.WriteFile(file, []byte("wbsElementCode,description\nP-1,a\nP-2,b\nP-3,c\n"), 0o600)
	if res := (cmdtest.Run{}).Do(t, srv, "apply", "-f", file, "--state", url, "--rate", "0"); res.Code != 0 {
		t.Fatalf("apply on the shared state: %d %s", res.Code, res.ErrOut)
	}
	if res := (cmdtest.Run{}).Do(t, srv, "state", "push", local, url); res.Code == 0 || !strings.Contains(res.ErrOut, "an older copy over a newer state") {
		t.Fatalf("an older copy pushed: %d %s", res.Code, res.ErrOut)
	}
	pulled := filepath.Join(dir, "pulled")
	if res := (cmdtest.Run{}).Do(t, srv, "state", "pull", url, pulled); res.Code != 0 {
		t.Fatalf("pull: %d %s", res.Code, res.ErrOut)
	}
	show := (cmdtest.Run{}).Do(t, srv, "state", "show", pulled)
	if !strings.Contains(show.Out, "serial:   4") || !strings.Contains(show.Out, "elements: 3") {
		t.Fatalf("the pulled state:\n%s%s", show.Out, show.ErrOut)
	}
	other := filepath.Join(dir, "other")
	os.WriteFile(other, []byte(`{"formatVersion":1,"baseUrl":"https://other.example","clientId":"c","lineage":"x","serial":9,"elements":{}}`), 0o600)
	for _, args := range [][]string{{"state", "push", other, url}, {"state", "push", other, url, "--force"}} {
		if res := (cmdtest.Run{}).Do(t, srv, args...); res.Code == 0 || !strings.Contains(res.ErrOut, "belongs to https://other.example") {
			t.Fatalf("%v: %d %s", args, res.Code, res.ErrOut)
		}
	}
	if res := (cmdtest.Run{}).Do(t, srv, "state", "push", local, url, "--force"); res.Code != 0 {
		t.Fatalf("--force: %d %s", res.Code, res.ErrOut)
	}
	if back := (cmdtest.Run{}).Do(t, srv, "state", "show", url); !strings.Contains(back.Out, "serial:   2") || !strings.Contains(back.Out, "lock:     not held") {
		t.Fatalf("after --force:\n%s%s", back.Out, back.ErrOut)
	}
}

// The state commands take the state as apply does: an argument, --state,
// or WBSCTL_STATE, which the pipelines set; the command a refused run
// prints runs as printed.
func TestStateCommandsTakeWBSCTLSTATE(t *testing.T) {
	srv := wbstest.Start(t)
	s3test.Env(t)
	url := s3test.Start(t, "env/wbs.state")
	dir := t.TempDir()
	file := filepath.Join(dir, "elements.csv")
	os.WriteFile(file, []byte("wbsElementCode,description\nP-1,a\n"), 0o600)
	env := cmdtest.Run{Env: map[string]string{"WBSCTL_STATE": url}}
	if res := env.Do(t, srv, "apply", "-f", file, "--rate", "0"); res.Code != 0 {
		t.Fatalf("apply: %d %s", res.Code, res.ErrOut)
	}
	for _, args := range [][]string{{"state", "show"}, {"state", "show", "--state", url}, {"state", "show", url}} {
		if res := env.Do(t, srv, args...); res.Code != 0 || !strings.Contains(res.Out, "elements: 1") {
			t.Fatalf("%v: %d %s%s", args, res.Code, res.Out, res.ErrOut)
		}
	}
	if res := env.Do(t, srv, "state", "show", url, "--state", url); res.Code != 2 || !strings.Contains(res.ErrOut, "given twice") {
		t.Fatalf("a state given twice: %d %s", res.Code, res.ErrOut)
	}
	store, err := statestore.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	killed := statestore.NewHolder("apply -f nightly.csv", "", time.Now())
	if _, err := store.Lock(context.Background(), killed, 0); err != nil {
		t.Fatal(err)
	}
	refused := env.Do(t, srv, "apply", "-f", file, "--rate", "0")
	printed := "wbsctl state unlock " + killed.ID + " (WBSCTL_STATE names the state)"
	if refused.Code == 0 || !strings.Contains(refused.ErrOut, printed) {
		t.Fatalf("a refused run: %d, no %q in %s", refused.Code, printed, refused.ErrOut)
	}
	if res := env.Do(t, srv, "state", "unlock", killed.ID); res.Code == 0 || !strings.Contains(res.ErrOut, "--force releases it") {
		t.Fatalf("state unlock of a lock taken a moment ago: %d %s, want it refused, naming --force", res.Code, res.ErrOut)
	}
	if res := env.Do(t, srv, "state", "unlock", killed.ID, "--force"); res.Code != 0 {
		t.Fatalf("state unlock ID with WBSCTL_STATE: %d %s", res.Code, res.ErrOut)
	}
	if h, err := store.Holder(context.Background()); err != nil || h != nil {
		t.Fatalf("after the unlock: %+v %v", h, err)
	}
	pulled := filepath.Join(dir, "pulled")
	if res := env.Do(t, srv, "state", "pull", pulled); res.Code != 0 {
		t.Fatalf("state pull FILE with WBSCTL_STATE: %d %s", res.Code, res.ErrOut)
	}
	if res := env.Do(t, srv, "state", "push", pulled); res.Code != 0 {
		t.Fatalf("state push FILE with WBSCTL_STATE: %d %s", res.Code, res.ErrOut)
	}
	if res := (cmdtest.Run{}).Do(t, srv, "state", "show"); res.Code != 2 || !strings.Contains(res.ErrOut, "WBSCTL_STATE") {
		t.Fatalf("no state at all: %d %s", res.Code, res.ErrOut)
	}
}

// The pipelines' two cached copies: a plans' copy that dry runs carried
// past the apply's state is taken over it, and one whose dry runs began
// before an apply it never saw is refused, however high its serial: dry
// runs raise the serial alone, an apply the applies too.
func TestStatePushRefusesACopyThatMissedAnApply(t *testing.T) {
	srv := wbstest.Start(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "elements.csv")
	os.WriteFile(file, []byte("wbsElementCode,description\nP-1,a\nP-2,b\n"), 0o600)
	applied, plans := filepath.Join(dir, "applied"), filepath.Join(dir, "plans")
	run := func(args ...string) {
		t.Helper()
		if res := (cmdtest.Run{}).Do(t, srv, args...); res.Code != 0 {
			t.Fatalf("%v: %d %s", args, res.Code, res.ErrOut)
		}
	}
	run("apply", "-f", file, "--state", applied, "--rate", "0")
	copyFile := func(from, to string) {
		b, _ := os.ReadFile(from)
		os.WriteFile(to, b, 0o600)
	}
	// A plan carries the apply's state on: its copy is taken.
	copyFile(applied, plans)
	run("apply", "-f", file, "--state", plans, "--dry-run", "--rate", "0")
	run("state", "push", plans, applied)
	// Three plans begin from it while an apply writes the state twice:
	// the plans' serial passes the apply's, its applies do not.
	copyFile(applied, plans)
	for range 3 {
		run("apply", "-f", file, "--state", plans, "--dry-run", "--rate", "0")
	}
	os.WriteFile(file, []byte("wbsElementCode,description\nP-1,a\nP-2,b changed\n"), 0o600)
	run("apply", "-f", file, "--state", applied, "--rate", "0")
	res := (cmdtest.Run{}).Do(t, srv, "state", "push", plans, applied)
	if res.Code == 0 || !strings.Contains(res.ErrOut, "a copy made before an apply it does not know of") {
		t.Fatalf("a plans' copy that missed an apply was pushed: %d %s", res.Code, res.ErrOut)
	}
}
