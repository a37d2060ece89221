package root

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/iostreams"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// Commands leave the Factory they share as they found it: options of
// their own go to their client, a format of their own to their printer.
func TestCommandsDoNotChangeTheFactory(t *testing.T) {
	srv := wbstest.Start(t)
	file := filepath.Join(t.TempDir(), "e.csv")
	if err := os.WriteFile(file, []byte("wbsElementCode\nP-1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"WBSCTL_BASE_URL": srv.URL, "WBSCTL_CLIENT_ID": srv.ClientID, "WBSCTL_CLIENT_SECRET": srv.ClientSecret,
		"XDG_CONFIG_HOME": t.TempDir(), "XDG_CACHE_HOME": t.TempDir()}
	for _, args := range [][]string{
		{"apply", "-f", file, "--quiet"},
		{"api", "/v1/wbs-elements"},
		{"auth", "status", "--json"},
		{"element", "list"},
	} {
		streams, _, _, errOut := iostreams.Test()
		f := cmdutil.New(streams)
		f.Getenv = func(k string) string { return env[k] }
		if code := Run(context.Background(), f, args); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		if len(f.ClientOptions) != 0 || f.Global.Output != "" {
			t.Errorf("%v changed the factory: %d client options, output %q", args, len(f.ClientOptions), f.Global.Output)
		}
	}
}
