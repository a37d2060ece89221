package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wbsctl/wbsctl/internal/statestore"
	"github.com/wbsctl/wbsctl/internal/wbsfile"
	"github.com/wbsctl/wbsctl/sdk"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// The guards of GUARDS.md in the engine: a state belongs to one platform
// (base URL) and one integration (client id), and a run of another is
// refused before anything is sent.

// A state written by integration A is refused to integration B on the
// same platform: the refusal names both, and B's run sends no write and
// leaves the state as A wrote it.
func TestStateOfAnotherClientIsRefused(t *testing.T) {
	srv := wbstest.NewServer(wbstest.WithCredential("integration-a", "secret-a-0123456789"),
		wbstest.WithCredential("integration-b", "secret-b-0123456789"))
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "state.json")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	runAs := func(clientID, secret string, recs []wbsfile.Record) error {
		c, err := sdk.NewClient(srv.URL, sdk.WithCredentials(clientID, secret))
		if err != nil {
			t.Fatal(err)
		}
		_, err = Run(ctx, c, Input{File: &wbsfile.File{Records: recs}, State: statestore.NewFile(path)}, Hooks{})
		return err
	}
	if err := runAs("integration-a", "secret-a-0123456789", records(3)); err != nil {
		t.Fatalf("integration A's run: %v", err)
	}
	written, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	before := srv.Elements()
	changed := records(3)
	for i := range changed {
		changed[i].Description = sdk.Ptr("changed by B")
	}
	err = runAs("integration-b", "secret-b-0123456789", changed)
	if !errors.Is(err, ErrStateUnusable) || !strings.Contains(err.Error(), "integration-a") || !strings.Contains(err.Error(), "integration-b") {
		t.Fatalf("integration B's run over A's state: %v; want ErrStateUnusable naming integration-a and integration-b", err)
	}
	for i, e := range srv.Elements() {
		if *e.Description != *before[i].Description {
			t.Fatalf("B's run over A's state changed %s: %q", e.Code, *e.Description)
		}
	}
	if now, _ := os.ReadFile(path); string(now) != string(written) {
		t.Fatalf("B's run over A's state rewrote it:\n%s", now)
	}
}

// A state written against one platform is refused against another, for
// the same client id: the refusal names both base URLs.
func TestStateOfAnotherBaseURLIsRefused(t *testing.T) {
	first := wbstest.NewServer(wbstest.WithCredential("integration-a", "secret-a-0123456789"))
	defer first.Close()
	second := wbstest.NewServer(wbstest.WithCredential("integration-a", "secret-a-0123456789"))
	defer second.Close()
	path := filepath.Join(t.TempDir(), "state.json")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	runOn := func(srv *wbstest.Server) error {
		c, err := sdk.NewClient(srv.URL, sdk.WithCredentials("integration-a", "secret-a-0123456789"))
		if err != nil {
			t.Fatal(err)
		}
		_, err = Run(ctx, c, Input{File: &wbsfile.File{Records: records(3)}, State: statestore.NewFile(path)}, Hooks{})
		return err
	}
	if err := runOn(first); err != nil {
		t.Fatalf("the run on the first platform: %v", err)
	}
	err := runOn(second)
	if !errors.Is(err, ErrStateUnusable) || !strings.Contains(err.Error(), first.URL) || !strings.Contains(err.Error(), second.URL) {
		t.Fatalf("a run on another platform: %v; want ErrStateUnusable naming %s and %s", err, first.URL, second.URL)
	}
	if n := len(second.Elements()); n != 0 {
		t.Fatalf("the run on another platform made %d elements", n)
	}
}

// state push (CopyState) never writes a state over one of another
// platform or another client id, with --force neither: the refusal names
// both, and the state pushed over is left as it was.
func TestStateCopyOverAnotherPlatformOrClientIsRefused(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := t.TempDir()
	from := filepath.Join(dir, "local.json")
	os.WriteFile(from, []byte(`{"formatVersion":1,"baseUrl":"https://a.example","clientId":"integration-a","lineage":"l","serial":3,"elements":{}}`), 0o600)
	for name, over := range map[string]string{
		"another client id": `{"formatVersion":1,"baseUrl":"https://a.example","clientId":"integration-b","lineage":"l","serial":1,"elements":{}}`,
		"another platform":  `{"formatVersion":1,"baseUrl":"https://b.example","clientId":"integration-a","lineage":"l","serial":1,"elements":{}}`,
	} {
		for _, force := range []bool{false, true} {
			to := filepath.Join(dir, "shared.json")
			os.WriteFile(to, []byte(over), 0o600)
			holder := statestore.NewHolder("state push", "", time.Now())
			_, err := CopyState(ctx, statestore.NewFile(from), statestore.NewFile(to), to, holder, force)
			want := map[string]string{"another client id": "integration-b", "another platform": "https://b.example"}[name]
			if !errors.Is(err, ErrStateRefused) || !strings.Contains(err.Error(), want) {
				t.Errorf("a copy over a state of %s (force %v): %v; want ErrStateRefused naming %s", name, force, err, want)
			}
			if now, _ := os.ReadFile(to); string(now) != over {
				t.Errorf("a copy over a state of %s (force %v) wrote over it:\n%s", name, force, now)
			}
		}
	}
}
