package auth_test

import (
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/wbsctl/wbsctl/internal/cmd/cmdtest"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/credentials"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// echoServer is a reference server behind a hostile front: every update
// is refused with a problem whose detail repeats the bearer token and the
// client secret. It records every token it was sent.
type echoServer struct {
	*wbstest.Server
	mu     sync.Mutex
	tokens map[string]bool
}

func newEchoServer(t *testing.T) *echoServer {
	e := &echoServer{Server: wbstest.New(), tokens: map[string]bool{}}
	cmdtest.Behind(t, e.Server, func(w http.ResponseWriter, r *http.Request) bool {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok {
			return false
		}
		e.mu.Lock()
		e.tokens[tok] = true
		e.mu.Unlock()
		if r.Method != http.MethodPut {
			return false
		}
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusUnprocessableEntity)
		fmt.Fprintf(w, `{"title":"token %s","status":422,"detail":"secret %s, token %s","echo":"%s"}`, tok, e.ClientSecret, tok, tok)
		return true
	})
	return e
}

func (e *echoServer) secrets() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := []string{e.ClientSecret}
	for tok := range e.tokens {
		out = append(out, tok)
	}
	return out
}

// The secret and the tokens appear in no output, debug log, error,
// report, configuration or completion; only in the keyring, the 0600
// secrets file of --insecure-storage and the 0600 token cache, in 0700
// folders.
func TestNoSecretOrTokenOutsideTheKeyringAndCaches(t *testing.T) {
	srv := newEchoServer(t)
	e := newEnv(t)
	work := t.TempDir()
	report := filepath.Join(work, "report.ndjson")
	file := filepath.Join(work, "elements.csv")
	if err := os.WriteFile(file, []byte("wbsElementCode,description,isActive,businessOrganizations\nA,first,true,company=1000\nB,second,false,\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv.Put(wbstest.Element{Code: "A", IsActive: true})

	login := []string{"auth", "login", "--base-url", srv.URL, "--client-id", srv.ClientID, "--with-secret-stdin"}
	steps := []struct {
		stdin string
		args  []string
		code  int
	}{
		{srv.ClientSecret + "\n", login, cmdutil.ExitOK},
		{srv.ClientSecret + "\n", append([]string{"--profile", "file"}, append(login, "--insecure-storage")...), cmdutil.ExitOK},
		{"", []string{"auth", "status"}, cmdutil.ExitOK},
		{"", []string{"auth", "status", "--json"}, cmdutil.ExitOK},
		{"", []string{"element", "list", "--debug", "-o", "json"}, cmdutil.ExitOK},
		{"", []string{"element", "list", "--profile", "file", "--debug", "-o", "yaml"}, cmdutil.ExitOK},
		{"", []string{"element", "update", "A", "--description", "x", "--debug"}, cmdutil.ExitValidation},
		{"", []string{"element", "update", "A", "--description", "x", "-o", "json"}, cmdutil.ExitValidation},
		{"", []string{"apply", "-f", file, "--report", report, "--debug"}, cmdutil.ExitPartial},
		{"", []string{"__complete", "element", "update", ""}, cmdutil.ExitOK},
		{"", []string{"__complete", "--profile", ""}, cmdutil.ExitOK},
		{"", []string{"completion", "bash"}, cmdutil.ExitOK},
	}
	var printed strings.Builder
	for _, s := range steps {
		code, out, errOut := e.run(s.stdin, s.args...)
		if code != s.code {
			t.Fatalf("%v: exit %d, want %d\n%s%s", s.args, code, s.code, out, errOut)
		}
		fmt.Fprintf(&printed, "$ %v\n%s%s", s.args, out, errOut)
	}
	// The hostile answers were really seen, and redacted.
	if !strings.Contains(printed.String(), "[REDACTED]") || !strings.Contains(printed.String(), "http attempt") {
		t.Fatalf("the echoed secrets were not seen:\n%s", printed.String())
	}
	secrets := srv.secrets()
	if len(secrets) < 2 {
		t.Fatal("no token was used")
	}
	for _, secret := range secrets {
		if i := strings.Index(printed.String(), secret); i >= 0 {
			t.Fatalf("a secret or token was printed: ...%s...", printed.String()[max(i-300, 0):i])
		}
	}

	// Which files may hold a secret: the insecure-storage secrets file
	// holds the client secret, the token cache the tokens; nothing else.
	allowed := map[string]bool{
		filepath.Join(e.cfg, "wbsctl", "secrets.json"): true,
		filepath.Join(e.cch, "wbsctl", "tokens.json"):  true,
	}
	for _, root := range []string{e.cfg, e.cch, work} {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			ours := strings.Contains(p, string(filepath.Separator)+"wbsctl")
			if d.IsDir() {
				if ours && info.Mode().Perm() != 0o700 {
					t.Errorf("folder %s has mode %v, want 0700", p, info.Mode().Perm())
				}
				return nil
			}
			if ours && info.Mode().Perm() != 0o600 {
				t.Errorf("file %s has mode %v, want 0600", p, info.Mode().Perm())
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, secret := range secrets {
				if strings.Contains(string(b), secret) && !allowed[p] {
					t.Errorf("%s holds a secret or token", p)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if b, err := os.ReadFile(report); err != nil || !strings.Contains(string(b), `"status":"failed"`) {
		t.Fatalf("the report does not record the refused update: %v\n%s", err, b)
	}
	if len(e.keyring.m) != 1 || e.keyring.m[credentials.Account(srv.ClientID, srv.URL)] != srv.ClientSecret {
		t.Fatalf("keyring: %d entries", len(e.keyring.m))
	}
}

// Two platforms with the same client id keep two secrets: a profile
// never reads another platform's secret, and logging out of one leaves
// the other.
func TestKeyringIsScopedByPlatformAndClientID(t *testing.T) {
	const id = "integrationhub-shared"
	a := wbstest.Start(t, wbstest.WithCredential(id, "secret-of-a"))
	b := wbstest.Start(t, wbstest.WithCredential(id, "secret-of-b"))
	e := newEnv(t)
	for name, srv := range map[string]*wbstest.Server{"a": a, "b": b} {
		code, _, errOut := e.run(srv.ClientSecret+"\n", "auth", "login", "--profile", name, "--base-url", srv.URL, "--client-id", id, "--with-secret-stdin")
		if code != 0 {
			t.Fatalf("login %s: %s", name, errOut)
		}
	}
	if len(e.keyring.m) != 2 || e.keyring.m[credentials.Account(id, a.URL)] != "secret-of-a" || e.keyring.m[credentials.Account(id, b.URL)] != "secret-of-b" {
		t.Fatalf("keyring accounts: %d, want one a platform", len(e.keyring.m))
	}
	// A fresh token cache each time, so that each command exchanges its
	// profile's own secret.
	for _, name := range []string{"a", "b", "a"} {
		_ = os.RemoveAll(filepath.Join(e.cch, "wbsctl"))
		if code, _, errOut := e.run("", "element", "list", "--profile", name); code != 0 {
			t.Fatalf("list with profile %s: %s", name, errOut)
		}
	}
	if code, _, _ := e.run("", "auth", "logout", "--profile", "a"); code != 0 {
		t.Fatal("logout a")
	}
	if _, ok := e.keyring.m[credentials.Account(id, b.URL)]; !ok || len(e.keyring.m) != 1 {
		t.Fatal("logging out of a removed b's secret")
	}
	_ = os.RemoveAll(filepath.Join(e.cch, "wbsctl"))
	if code, _, errOut := e.run("", "element", "list", "--profile", "b"); code != 0 {
		t.Fatalf("list with profile b after logout of a: %s", errOut)
	}
	// A profile whose base URL is changed by a flag does not take the
	// profile's secret to the other platform.
	e.vars["WBSCTL_BASE_URL"] = a.URL
	if code, _, _ := e.run("", "element", "list", "--profile", "b"); code != cmdutil.ExitAuth {
		t.Fatalf("profile b pointed at a: exit %d, want %d (no credentials)", code, cmdutil.ExitAuth)
	}
}
