package serve_test

import (
	"crypto/x509"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wbsctl/wbsctl/internal/cmd/cmdtest"
	"github.com/wbsctl/wbsctl/internal/cmd/serve"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// serve --tls --client-ca requires a client certificate of that
// authority: wbsctl with the right pair (flags, environment or the
// profile of auth login) is served; with none, another authority's or an
// expired one it is refused, and the error says which.
func TestMutualTLS(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ca, err := wbstest.NewCertificateAuthority("clients")
	if err != nil {
		t.Fatal(err)
	}
	other, _ := wbstest.NewCertificateAuthority("someone else")
	now := time.Now()
	goodCert, goodKey, _ := ca.Issue("ci-runner", now.Add(-time.Minute), time.Hour)
	strangerCert, strangerKey, _ := other.Issue("ci-runner", now.Add(-time.Minute), time.Hour)
	oldCert, oldKey, _ := ca.Issue("ci-runner", now.Add(-48*time.Hour), time.Hour)
	serverCert, serverKey, _ := ca.IssueWithUsage("ci-runner", now.Add(-time.Minute), time.Hour, x509.ExtKeyUsageServerAuth)
	pairs := map[string][2]string{
		"good":        {write("good.pem", goodCert), write("good.key", goodKey)},
		"stranger":    {write("stranger.pem", strangerCert), write("stranger.key", strangerKey)},
		"expired":     {write("old.pem", oldCert), write("old.key", oldKey)},
		"server-only": {write("server.pem", serverCert), write("server.key", serverKey)},
	}
	caFile := filepath.Join(dir, "server-ca.pem")
	base, _ := start(t, &serve.Options{TLS: true, TLSCAOut: caFile, ClientCA: write("clients-ca.pem", ca.CertPEM), MaxPageSize: 100})
	srv := &wbstest.Server{URL: base, ClientID: clientID, ClientSecret: secret}

	run := func(env map[string]string, args ...string) cmdtest.Result {
		return cmdtest.Run{Env: env}.Do(t, srv, append([]string{"--ca-file", caFile}, args...)...)
	}
	good := pairs["good"]
	if res := run(nil, "element", "list", "--client-cert", good[0], "--client-key", good[1]); res.Code != 0 {
		t.Fatalf("the right pair: exit %d: %s", res.Code, res.ErrOut)
	}
	if res := run(map[string]string{"WBSCTL_CLIENT_CERT": good[0], "WBSCTL_CLIENT_KEY": good[1]}, "element", "list"); res.Code != 0 {
		t.Fatalf("the right pair from the environment: exit %d: %s", res.Code, res.ErrOut)
	}
	for _, tt := range []struct {
		name string
		pair []string
		want string
	}{
		{"none", nil, "requires a client certificate"},
		{"another authority's", []string{pairs["stranger"][0], pairs["stranger"][1]}, "does not trust the authority"},
		{"expired", []string{pairs["expired"][0], pairs["expired"][1]}, "has expired"},
		{"for servers only", []string{pairs["server-only"][0], pairs["server-only"][1]}, "lacks clientAuth"},
	} {
		args := []string{"element", "list"}
		if tt.pair != nil {
			args = append(args, "--client-cert", tt.pair[0], "--client-key", tt.pair[1])
		}
		res := run(nil, args...)
		// A refused client certificate is a refused credential.
		if res.Code != cmdutil.ExitAuth || !strings.Contains(res.ErrOut, tt.want) {
			t.Errorf("%s: exit %d: %s", tt.name, res.Code, res.ErrOut)
		}
	}
	// A refusal that breaks the connection under a large write is
	// explained all the same: the first request is a body of 8 MiB.
	big := write("big.json", []byte("{"+strings.Repeat(" ", 8<<20)+"}"))
	tokenOnly := map[string]string{"WBSCTL_CLIENT_ID": "", "WBSCTL_CLIENT_SECRET": "", "WBSCTL_TOKEN": "a-token"}
	if res := run(tokenOnly, "api", "-X", "POST", "/v1/anything", "--input", big, "--retry-safe"); res.Code != cmdutil.ExitAuth || !strings.Contains(res.ErrOut, "requires a client certificate") {
		t.Errorf("none, under a write: exit %d: %s", res.Code, res.ErrOut)
	}
	if res := run(nil, "element", "list", "--client-cert", good[0]); res.Code != cmdutil.ExitUsage {
		t.Errorf("a certificate without its key: exit %d, want %d", res.Code, cmdutil.ExitUsage)
	}

	// auth login keeps the pair in the profile, and later commands use it.
	cfgHome := t.TempDir()
	env := map[string]string{"XDG_CONFIG_HOME": cfgHome, "WBSCTL_CLIENT_SECRET": "", "WBSCTL_BASE_URL": "", "WBSCTL_CLIENT_ID": ""}
	login := cmdtest.Run{Env: env, Stdin: secret + "\n"}.Do(t, srv, "--ca-file", caFile, "auth", "login", "--base-url", base, "--client-id", clientID,
		"--with-secret-stdin", "--insecure-storage", "--client-cert", good[0], "--client-key", good[1])
	if login.Code != 0 {
		t.Fatalf("login with a client certificate: exit %d: %s", login.Code, login.ErrOut)
	}
	// The profile keeps --ca-file too: the next command needs neither.
	if res := (cmdtest.Run{Env: env}).Do(t, srv, "element", "list"); res.Code != 0 {
		t.Fatalf("a command with the profile's client certificate and authority: exit %d: %s", res.Code, res.ErrOut)
	}
}

func TestClientCAWithoutTLSIsAUsageError(t *testing.T) {
	res := cmdtest.Run{}.Do(t, &wbstest.Server{ClientSecret: "unused-secret"}, "serve", "--addr", "127.0.0.1:0", "--client-ca", "ca.pem")
	if res.Code != cmdutil.ExitUsage || !strings.Contains(res.ErrOut, "--client-ca needs --tls") {
		t.Fatalf("exit %d: %s", res.Code, res.ErrOut)
	}
}
