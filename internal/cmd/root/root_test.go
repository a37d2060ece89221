package root

import (
	"context"
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/iostreams"
)

func TestVersionHelpAndUsageCodes(t *testing.T) {
	tests := []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"version"}, cmdutil.ExitOK, "wbsctl dev (commit none, built unknown)\n"},
		{[]string{"help", "exit-codes"}, cmdutil.ExitOK, "7  changes pending"},
		{[]string{"version", "extra"}, cmdutil.ExitUsage, ""},
		{[]string{"serve", "--no-such-flag"}, cmdutil.ExitUsage, ""},
		{[]string{"no-such-command"}, cmdutil.ExitUsage, ""},
		{[]string{"serve", "--addr", "127.0.0.1:0", "--org-update", "never"}, cmdutil.ExitUsage, ""},
		{[]string{"serve", "--addr", "127.0.0.1:0", "--fault", "kind=none"}, cmdutil.ExitUsage, ""},
		{[]string{"serve", "--addr", "127.0.0.1:0", "--credential", "no-secret"}, cmdutil.ExitUsage, ""},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			io, _, out, _ := iostreams.Test()
			f := cmdutil.New(io)
			if got := Run(context.Background(), f, tt.args); got != tt.code {
				t.Fatalf("exit code %d, want %d", got, tt.code)
			}
			if tt.out != "" && !strings.Contains(out.String(), tt.out) {
				t.Fatalf("output %q, want %q", out.String(), tt.out)
			}
		})
	}
}
