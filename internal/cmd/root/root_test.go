package root

import (
	"context"
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/internal/iostreams"
)

func TestVersionAndExitCodes(t *testing.T) {
	tests := []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"version"}, ExitOK, "wbsctl dev (commit none, built unknown)\n"},
		{[]string{"version", "extra"}, ExitUsage, ""},
		{[]string{"serve", "--no-such-flag"}, ExitUsage, ""},
		{[]string{"no-such-command"}, ExitUsage, ""},
		{[]string{"serve", "--addr", "127.0.0.1:0", "--org-update", "never"}, ExitError, ""},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			io, _, out, _ := iostreams.Test()
			cmd := NewCmdRoot(io)
			cmd.SetArgs(tt.args)
			err := cmd.ExecuteContext(context.Background())
			if got := ExitCode(err); got != tt.code {
				t.Fatalf("exit code %d, want %d (err %v)", got, tt.code, err)
			}
			if tt.out != "" && out.String() != tt.out {
				t.Fatalf("output %q, want %q", out.String(), tt.out)
			}
		})
	}
}
