package element_test

import (
	"context"
	"encoding/pem"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/internal/cmd/root"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/iostreams"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

func TestDynamicCompletionOfCodes(t *testing.T) {
	srv := wbstest.NewServer()
	defer srv.Close()
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

func TestTLSWithCAFile(t *testing.T) {
	ref := wbstest.New()
	ts := httptest.NewTLSServer(ref)
	defer ts.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw}), 0o600)
	list := func(extra ...string) (int, string) {
		io, _, _, errOut := iostreams.Test()
		f := cmdutil.New(io)
		env := map[string]string{"WBSCTL_BASE_URL": ts.URL, "WBSCTL_CLIENT_ID": ref.ClientID, "WBSCTL_CLIENT_SECRET": ref.ClientSecret,
			"XDG_CONFIG_HOME": t.TempDir(), "XDG_CACHE_HOME": t.TempDir()}
		f.Getenv = func(k string) string { return env[k] }
		return root.Run(context.Background(), f, append([]string{"element", "list"}, extra...)), errOut.String()
	}
	if code, errOut := list("--ca-file", ca); code != 0 {
		t.Fatalf("with --ca-file: %s", errOut)
	}
	if code, errOut := list(); code == 0 || !strings.Contains(errOut, "certificate") {
		t.Fatalf("an untrusted certificate was accepted: %d %s", code, errOut)
	}
}
