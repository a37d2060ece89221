package flow_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/internal/cmd/cmdtest"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

func TestFlowExecute(t *testing.T) {
	srv := wbstest.Start(t, wbstest.WithCredential("integrationhub-77", "flow-secret"))
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
			r := cmdtest.Run{Stdin: tt.stdin}.Do(t, srv, tt.args...)
			if r.Code != tt.code || !strings.HasPrefix(r.Out, tt.out) {
				t.Fatalf("exit %d out %q err %q", r.Code, r.Out, r.ErrOut)
			}
		})
	}
}
