package flow_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/internal/cmd/root"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/iostreams"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

func TestFlowExecute(t *testing.T) {
	srv := wbstest.NewServer(wbstest.WithCredential("integrationhub-77", "flow-secret"))
	defer srv.Close()
	file := filepath.Join(t.TempDir(), "in.json")
	os.WriteFile(file, []byte(`{"n":1}`), 0o600)
	tests := []struct {
		name  string
		stdin string
		args  []string
		code  int
		out   string
	}{
		{"default flow from file", "", []string{"flow", "execute", "--data", "@" + file, "--jq", ".received.n"}, 0, "1\n"},
		{"stdin", `{"n":2}`, []string{"flow", "execute", "77", "--data", "-", "--jq", ".flowId"}, 0, "77\n"},
		{"another flow", "", []string{"flow", "execute", "78"}, cmdutil.ExitAuth, ""},
		{"bad json", "", []string{"flow", "execute", "--data", "{"}, cmdutil.ExitUsage, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			io, in, out, errOut := iostreams.Test()
			in.WriteString(tt.stdin)
			f := cmdutil.New(io)
			env := map[string]string{"WBSCTL_BASE_URL": srv.URL, "WBSCTL_CLIENT_ID": "integrationhub-77", "WBSCTL_CLIENT_SECRET": "flow-secret",
				"XDG_CONFIG_HOME": t.TempDir(), "XDG_CACHE_HOME": t.TempDir()}
			f.Getenv = func(k string) string { return env[k] }
			code := root.Run(context.Background(), f, tt.args)
			if code != tt.code || !strings.HasPrefix(out.String(), tt.out) {
				t.Fatalf("exit %d out %q err %q", code, out.String(), errOut.String())
			}
		})
	}
}
