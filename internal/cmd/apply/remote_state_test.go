package apply_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wbsctl/wbsctl/internal/cmd/cmdtest"
	"github.com/wbsctl/wbsctl/internal/statestore"
	"github.com/wbsctl/wbsctl/internal/statestore/s3test"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// A state kept in a bucket serves runners that start with nothing: a
// fresh runner with only the URL plans an unchanged platform at the cost
// of the list; a run finding the lock held fails naming its holder, with
// nothing sent; a killed run's lock is released by state unlock and the
// run after converges; one not renewed for --break-stale-after is
// broken; WBSCTL_STATE gives the URL as --state does.
func TestStateInABucket(t *testing.T) {
	const n = 300
	srv := wbstest.Start(t)
	s3test.Env(t)
	bucket := s3test.StartServer(t)
	url := bucket.State("prod/wbs.state")
	file := linkedFile(t, t.TempDir(), n, 0)
	if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--state", url, "--rate", "0"); code != 0 {
		t.Fatalf("first apply: %d %s", code, errOut)
	}
	// Another runner: other folders (cmdtest gives each run its own),
	// the URL from the environment.
	srv.ResetStats()
	fresh := cmdtest.Run{Env: map[string]string{"WBSCTL_STATE": url}}.Do(t, srv, "apply", "-f", file, "--dry-run", "--detailed-exitcode", "--rate", "0")
	if fresh.Code != 0 || requests(srv) > (n+99)/100+2+(n+19)/20 {
		t.Fatalf("a fresh runner's plan: exit %d, %d requests: %s", fresh.Code, requests(srv), fresh.ErrOut)
	}

	ctx := context.Background()
	store, err := statestore.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	killed := statestore.NewHolder("apply -f nightly.csv", "https://ci.example/jobs/41", time.Now())
	if _, err := store.Lock(ctx, killed, 0); err != nil { // never released: its run was killed
		t.Fatal(err)
	}
	srv.ResetStats()
	code, _, errOut := run(t, srv, "", "apply", "-f", file, "--state", url, "--rate", "0")
	for _, want := range []string{"held by apply -f nightly.csv", killed.ID, "https://ci.example/jobs/41", "wbsctl state unlock"} {
		if code == 0 || !strings.Contains(errOut, want) {
			t.Errorf("a locked state: exit %d, no %q: %s", code, want, errOut)
		}
	}
	if writes(srv) != 0 {
		t.Fatalf("a run refused by the lock wrote %d times", writes(srv))
	}
	show := cmdtest.Run{}.Do(t, srv, "state", "show", url)
	if show.Code != 0 || !strings.Contains(show.Out, "held by apply -f nightly.csv") || !strings.Contains(show.Out, "elements: 300") {
		t.Fatalf("state show: %d %s%s", show.Code, show.Out, show.ErrOut)
	}
	if res := (cmdtest.Run{}).Do(t, srv, "state", "unlock", url, "another-id"); res.Code == 0 {
		t.Fatalf("unlock of another id: %s", res.ErrOut)
	}
	bucket.Advance(statestore.MinBreakStale) // by the bucket's clock: its run is gone
	if res := (cmdtest.Run{}).Do(t, srv, "state", "unlock", url, killed.ID); res.Code != 0 {
		t.Fatalf("unlock: %d %s", res.Code, res.ErrOut)
	}
	// The killed run may have written the platform after it last wrote
	// the state: the run after the unlock reads every link, and the one
	// after it trusts the state again.
	srv.ResetStats()
	if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--state", url, "--rate", "0"); code != 0 || requests(srv) < n {
		t.Fatalf("after unlock: exit %d, %d requests, want every element's links read: %s", code, requests(srv), errOut)
	}
	srv.ResetStats()
	if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--state", url, "--rate", "0"); code != 0 || requests(srv) > (n+99)/100+2+(n+19)/20 {
		t.Fatalf("the run after: exit %d, %d requests: %s", code, requests(srv), errOut)
	}

	stale := statestore.NewHolder("apply -f nightly.csv", "", time.Now())
	if _, err := store.Lock(ctx, stale, 0); err != nil {
		t.Fatal(err)
	}
	bucket.Advance(2 * time.Hour) // by the bucket's clock
	if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--state", url, "--break-stale-after", "3h", "--rate", "0"); code == 0 {
		t.Fatalf("a lock renewed 2 hours ago broken after 3: %s", errOut)
	}
	srv.ResetStats()
	if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--state", url, "--break-stale-after", "1h", "--rate", "0"); code != 0 {
		t.Fatalf("a lock renewed 2 hours ago, broken after 1: %d %s", code, errOut)
	}
	// The broken run may have written the platform after it last wrote
	// the state: the run that broke its lock trusted none of the state's
	// links, and read every element's.
	if got := requests(srv); got < n {
		t.Fatalf("the run that broke a lock sent %d requests, want every element's links read (%d or more)", got, n)
	}
	if h, err := store.Holder(ctx); err != nil || h != nil {
		t.Fatalf("the run that broke the lock left it: %+v %v", h, err)
	}
	show = cmdtest.Run{}.Do(t, srv, "state", "show", url)
	if !strings.Contains(show.Out, "break:    the lock of apply -f nightly.csv") || !strings.Contains(show.Out, "a plan has read every link since") {
		t.Fatalf("state show after a break:\n%s%s", show.Out, show.ErrOut)
	}
	srv.ResetStats()
	if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--state", url, "--rate", "0"); code != 0 || requests(srv) > (n+99)/100+2+(n+19)/20 {
		t.Fatalf("once the break was verified: exit %d, %d requests: %s", code, requests(srv), errOut)
	}
}

// A saved plan made with a local state and carried out against a bucket
// state works as with files: the state is where the run keeps it.
func TestStateURLsOfEveryKind(t *testing.T) {
	srv := wbstest.Start(t)
	dir := t.TempDir()
	file := linkedFile(t, dir, 20, 0)
	s3test.Env(t)
	for _, state := range []string{filepath.Join(dir, "plain"), "file://" + filepath.ToSlash(filepath.Join(dir, "url")), s3test.Start(t, "k/state")} {
		if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--state", state, "--dry-run", "--rate", "0"); code != 0 {
			t.Fatalf("%s: %d %s", state, code, errOut)
		}
		srv.ResetStats()
		if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--state", state, "--dry-run", "--rate", "0"); code != 0 || requests(srv) > 3 {
			t.Fatalf("%s, again: exit %d, %d requests: %s", state, code, requests(srv), errOut)
		}
	}
	if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--state", "ftp://host/state", "--rate", "0"); code != 2 || !strings.Contains(errOut, "s3://BUCKET/KEY") {
		t.Fatalf("an unknown scheme: exit %d: %s", code, errOut)
	}
}
