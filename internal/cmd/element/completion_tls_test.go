package element_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

func TestDynamicCompletionOfCodes(t *testing.T) {
	srv := wbstest.Start(t)
	srv.Put(wbstest.Element{Code: "P-1"}, wbstest.Element{Code: "P-2"}, wbstest.Element{Code: "Q-1"})
	r := run(t, srv, false, "", "__complete", "element", "delete", "P-")
	if r.Code != 0 || !strings.HasPrefix(r.Out, "P-1\nP-2\n:4\n") {
		t.Fatalf("completion: %q", r.Out)
	}
	r = run(t, srv, false, "", "completion", "bash")
	if r.Code != 0 || !strings.Contains(r.Out, "__start_wbsctl") {
		t.Fatalf("bash completion script: exit %d", r.Code)
	}
}

// The CLI trusts a server's certificate through --ca-file, and refuses,
// with a hint, one from an unknown authority, for another host or
// expired; nothing turns the check off.
func TestTLSWithCAFile(t *testing.T) {
	now := time.Now()
	otherCA, _, err := wbstest.SelfSignedCertificate([]string{"127.0.0.1"}, now, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		hosts     []string
		notBefore time.Time
		caFile    func(own []byte) []byte // nil: no --ca-file
		want      string                  // "": success
	}{
		{"trusted with --ca-file", []string{"127.0.0.1"}, now.Add(-time.Minute), func(own []byte) []byte { return own }, ""},
		{"no --ca-file", []string{"127.0.0.1"}, now.Add(-time.Minute), nil, "signed by unknown authority"},
		{"another authority", []string{"127.0.0.1"}, now.Add(-time.Minute), func([]byte) []byte { return otherCA }, "signed by unknown authority"},
		{"another host name", []string{"other.invalid"}, now.Add(-time.Minute), func(own []byte) []byte { return own }, "for another host name"},
		{"expired", []string{"127.0.0.1"}, now.Add(-48 * time.Hour), func(own []byte) []byte { return own }, "has expired"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			certPEM, keyPEM, err := wbstest.SelfSignedCertificate(tt.hosts, tt.notBefore, 24*time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			srv, err := wbstest.NewTLSServer(certPEM, keyPEM)
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			var args []string
			if tt.caFile != nil {
				ca := filepath.Join(t.TempDir(), "ca.pem")
				if err := os.WriteFile(ca, tt.caFile(certPEM), 0o600); err != nil {
					t.Fatal(err)
				}
				args = []string{"--ca-file", ca}
			}
			r := run(t, srv, false, "", append(args, "element", "list")...)
			if tt.want == "" {
				if r.Code != 0 {
					t.Fatalf("%+v", r)
				}
				return
			}
			if r.Code != cmdutil.ExitError || !strings.Contains(r.ErrOut, "certificate") || !strings.Contains(r.ErrOut, "hint: ") || !strings.Contains(r.ErrOut, tt.want) {
				t.Fatalf("a bad certificate was not refused clearly: %+v", r)
			}
			if n := len(srv.Journal()); n != 0 {
				t.Fatalf("the server saw %d requests", n)
			}
		})
	}
}
