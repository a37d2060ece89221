package auth_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/wbsctl/wbsctl/internal/cmd/root"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/credentials"
	"github.com/wbsctl/wbsctl/internal/iostreams"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// fakeKeyring is a keyring in memory; with forbidden set, any call fails
// the test.
type fakeKeyring struct {
	t         *testing.T
	forbidden bool
	// unavailable makes Set fail, as a keyring without a D-Bus session.
	unavailable error
	mu          sync.Mutex
	m           map[string]string
}

func (k *fakeKeyring) check() {
	if k.forbidden {
		k.t.Error("the keyring was touched")
	}
}
func (k *fakeKeyring) Get(a string) (string, error) {
	k.check()
	k.mu.Lock()
	defer k.mu.Unlock()
	s, ok := k.m[a]
	if !ok {
		return "", credentials.ErrNotFound
	}
	return s, nil
}
func (k *fakeKeyring) Set(a, s string) error {
	k.check()
	if k.unavailable != nil {
		return k.unavailable
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.m[a] = s
	return nil
}
func (k *fakeKeyring) Delete(a string) error {
	k.check()
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.m, a)
	return nil
}

type env struct {
	t        *testing.T
	vars     map[string]string
	keyring  *fakeKeyring
	cfg, cch string
}

func newEnv(t *testing.T) *env {
	cfg, cch := t.TempDir(), t.TempDir()
	return &env{t: t, keyring: &fakeKeyring{t: t, m: map[string]string{}}, cfg: cfg, cch: cch,
		vars: map[string]string{"XDG_CONFIG_HOME": cfg, "XDG_CACHE_HOME": cch}}
}

func (e *env) run(stdin string, args ...string) (int, string, string) {
	io, in, out, errOut := iostreams.Test()
	in.WriteString(stdin)
	f := cmdutil.New(io)
	f.Getenv = func(k string) string { return e.vars[k] }
	f.Keyring = e.keyring
	code := root.Run(context.Background(), f, args)
	return code, out.String(), errOut.String()
}

func TestLoginStatusTokenLogout(t *testing.T) {
	srv := wbstest.Start(t)
	e := newEnv(t)
	code, _, errOut := e.run(srv.ClientSecret+"\n", "auth", "login", "--base-url", srv.URL, "--client-id", srv.ClientID, "--with-secret-stdin")
	if code != 0 || !strings.Contains(errOut, "logged in") {
		t.Fatalf("login: %d %s", code, errOut)
	}
	// Only the secret is in the keyring, scoped by client id and URL.
	if e.keyring.m[credentials.Account(srv.ClientID, srv.URL)] != srv.ClientSecret || len(e.keyring.m) != 1 {
		t.Fatalf("keyring: %v", e.keyring.m)
	}
	cfgFile := filepath.Join(e.cfg, "wbsctl", "config.yaml")
	tokFile := filepath.Join(e.cch, "wbsctl", "tokens.json")
	for _, p := range []string{cfgFile, tokFile} {
		st, err := os.Stat(p)
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("%s: %v %v", p, err, st)
		}
		b, _ := os.ReadFile(p)
		if strings.Contains(string(b), srv.ClientSecret) {
			t.Fatalf("%s holds the secret", p)
		}
	}
	code, out, _ := e.run("", "auth", "status", "--json")
	var st map[string]any
	if err := json.Unmarshal([]byte(out), &st); code != 0 || err != nil || st["secretSource"] != "keyring" || st["tokenValid"] != true || st["clientId"] != srv.ClientID {
		t.Fatalf("status: %d %s", code, out)
	}
	if strings.Contains(out, srv.ClientSecret) {
		t.Fatal("status shows the secret")
	}
	exchanges := srv.Stats().TokenExchanges
	for range 5 {
		if code, _, errOut := e.run("", "element", "list"); code != 0 {
			t.Fatalf("list with the profile: %s", errOut)
		}
	}
	code, out, _ = e.run("", "auth", "token")
	if code != 0 || strings.Count(out, ".") != 2 {
		t.Fatalf("token: %q", out)
	}
	if got := srv.Stats().TokenExchanges; got != exchanges {
		t.Fatalf("six commands made %d token exchanges, want 0 beyond login's", got-exchanges)
	}
	if code, _, _ := e.run("", "auth", "logout"); code != 0 || len(e.keyring.m) != 0 {
		t.Fatalf("logout: %d %v", code, e.keyring.m)
	}
	if code, _, _ := e.run("", "element", "list"); code != cmdutil.ExitAuth {
		t.Fatalf("after logout: exit %d, want %d", code, cmdutil.ExitAuth)
	}
}

func TestFailedLoginSavesNothing(t *testing.T) {
	srv := wbstest.Start(t)
	e := newEnv(t)
	code, _, errOut := e.run("not-the-secret\n", "auth", "login", "--base-url", srv.URL, "--client-id", srv.ClientID, "--with-secret-stdin")
	if code != cmdutil.ExitAuth || !strings.Contains(errOut, "nothing was saved") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if len(e.keyring.m) != 0 {
		t.Fatal("a refused secret was stored")
	}
	if _, err := os.Stat(filepath.Join(e.cfg, "wbsctl", "config.yaml")); !os.IsNotExist(err) {
		t.Fatal("a config was written")
	}
}

func TestInsecureStorageKeepsTheSecretInA0600File(t *testing.T) {
	srv := wbstest.Start(t)
	e := newEnv(t)
	e.keyring.forbidden = true
	code, _, errOut := e.run(srv.ClientSecret+"\n", "auth", "login", "--profile", "ci", "--base-url", srv.URL, "--client-id", srv.ClientID, "--with-secret-stdin", "--insecure-storage")
	if code != 0 {
		t.Fatalf("login: %s", errOut)
	}
	st, err := os.Stat(filepath.Join(e.cfg, "wbsctl", "secrets.json"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("secrets file: %v %v", err, st)
	}
	if code, _, errOut := e.run("", "element", "list", "--profile", "ci"); code != 0 {
		t.Fatalf("list: %s", errOut)
	}
}

func TestEnvironmentCredentialsNeverTouchTheKeyring(t *testing.T) {
	srv := wbstest.Start(t)
	e := newEnv(t)
	e.keyring.forbidden = true
	e.vars["WBSCTL_BASE_URL"], e.vars["WBSCTL_CLIENT_ID"], e.vars["WBSCTL_CLIENT_SECRET"] = srv.URL, srv.ClientID, srv.ClientSecret
	if code, _, errOut := e.run("", "element", "list"); code != 0 {
		t.Fatalf("list: %s", errOut)
	}
	code, out, _ := e.run("", "auth", "status")
	if code != 0 || !strings.Contains(out, "secret:    environment") || strings.Contains(out, srv.ClientSecret) {
		t.Fatalf("status: %s", out)
	}
}

func TestLoginWithoutTerminalOrStdinIsAUsageError(t *testing.T) {
	e := newEnv(t)
	code, _, errOut := e.run("", "auth", "login", "--base-url", "http://127.0.0.1:1", "--client-id", "x")
	if code != cmdutil.ExitUsage || !strings.Contains(errOut, "--with-secret-stdin") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}

// A login with a wrong secret after a good one, while the good one's token
// is cached, is refused by a fresh exchange and stores nothing.
func TestLoginWithAWrongSecretWhileATokenIsCached(t *testing.T) {
	srv := wbstest.Start(t)
	e := newEnv(t)
	login := []string{"auth", "login", "--base-url", srv.URL, "--client-id", srv.ClientID, "--with-secret-stdin"}
	if code, _, errOut := e.run(srv.ClientSecret+"\n", login...); code != 0 {
		t.Fatalf("first login: %d %s", code, errOut)
	}
	exchanges := srv.Stats().Requests[wbstest.OpToken]
	code, _, errOut := e.run("totally-wrong-secret\n", login...)
	if code != cmdutil.ExitAuth || !strings.Contains(errOut, "nothing was saved") {
		t.Fatalf("login with a wrong secret: exit %d: %s", code, errOut)
	}
	if srv.Stats().Requests[wbstest.OpToken] != exchanges+1 {
		t.Fatal("the wrong secret was not put to the platform")
	}
	if got := e.keyring.m[credentials.Account(srv.ClientID, srv.URL)]; got != srv.ClientSecret {
		t.Fatal("the keyring no longer holds the good secret")
	}
	// A second good login also asks the platform, though a token is cached.
	if code, _, _ := e.run(srv.ClientSecret+"\n", login...); code != 0 || srv.Stats().Requests[wbstest.OpToken] != exchanges+2 {
		t.Fatalf("a login answered from the cache: exit %d", code)
	}
}

// A secret in the environment that differs from the one a cached token was
// issued for is put to the platform, not masked by the token.
func TestChangedSecretIsNotMaskedByACachedToken(t *testing.T) {
	srv := wbstest.Start(t)
	e := newEnv(t)
	e.vars["WBSCTL_BASE_URL"], e.vars["WBSCTL_CLIENT_ID"], e.vars["WBSCTL_CLIENT_SECRET"] = srv.URL, srv.ClientID, srv.ClientSecret
	if code, _, errOut := e.run("", "element", "list"); code != 0 {
		t.Fatalf("list: %s", errOut)
	}
	e.vars["WBSCTL_CLIENT_SECRET"] = "rotated-but-wrong"
	if code, _, _ := e.run("", "element", "list"); code != cmdutil.ExitAuth {
		t.Fatalf("list with another secret: exit %d, want %d (refused)", code, cmdutil.ExitAuth)
	}
	code, out, _ := e.run("", "auth", "status", "--json")
	if code != 0 || !strings.Contains(out, `"tokenCached": false`) {
		t.Fatalf("status with another secret shows the old secret's token: %s", out)
	}
	// The good secret's token is still cached, and still used.
	e.vars["WBSCTL_CLIENT_SECRET"] = srv.ClientSecret
	exchanges := srv.Stats().Requests[wbstest.OpToken]
	if code, _, _ := e.run("", "element", "list"); code != 0 || srv.Stats().Requests[wbstest.OpToken] != exchanges {
		t.Fatalf("list with the good secret again: exit %d, %d exchanges", code, srv.Stats().Requests[wbstest.OpToken]-exchanges)
	}
}

// A login whose secret cannot be stored (no D-Bus session) leaves no
// token behind either, and, the credential being good, is no
// authentication failure: it names --insecure-storage.
func TestLoginWithoutAKeyringLeavesNoToken(t *testing.T) {
	srv := wbstest.Start(t)
	e := newEnv(t)
	e.keyring.unavailable = errors.New("The name org.freedesktop.secrets was not provided by any .service files")
	code, _, errOut := e.run(srv.ClientSecret+"\n", "auth", "login", "--base-url", srv.URL, "--client-id", srv.ClientID, "--with-secret-stdin")
	if code != cmdutil.ExitError || !strings.Contains(errOut, "the platform accepted the credential") ||
		!strings.Contains(errOut, "--insecure-storage") || !strings.Contains(errOut, "nothing was saved") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	b, _ := os.ReadFile(filepath.Join(e.cch, "wbsctl", "tokens.json"))
	if strings.Contains(string(b), "accessToken") && !strings.Contains(string(b), "[]") || strings.Count(string(b), ".") >= 2 {
		t.Fatalf("a token was left in the cache: %s", b)
	}
}

func TestStatusAndLogoutWithoutAProfileExitFour(t *testing.T) {
	e := newEnv(t)
	for _, args := range [][]string{{"auth", "status"}, {"auth", "logout"}} {
		code, out, errOut := e.run("", args...)
		if code != cmdutil.ExitAuth || !strings.Contains(errOut, "not logged in") || out != "" {
			t.Errorf("%v: exit %d, out %q, err %q", args, code, out, errOut)
		}
	}
}

// -o means for auth status what it means for every command; --json is -o
// json, and the two may not disagree.
func TestStatusTakesTheOutputFlags(t *testing.T) {
	srv := wbstest.Start(t)
	e := newEnv(t)
	e.vars["WBSCTL_BASE_URL"], e.vars["WBSCTL_CLIENT_ID"], e.vars["WBSCTL_CLIENT_SECRET"] = srv.URL, srv.ClientID, srv.ClientSecret
	if code, out, errOut := e.run("", "auth", "status", "-o", "yaml"); code != 0 || !strings.Contains(out, "clientId: "+srv.ClientID) {
		t.Fatalf("status -o yaml: exit %d, %s%s", code, out, errOut)
	}
	if code, out, errOut := e.run("", "auth", "status", "--jq", ".secretSource"); code != 0 || out != "environment\n" {
		t.Fatalf("status --jq: exit %d, %q%s", code, out, errOut)
	}
	if code, out, errOut := e.run("", "auth", "status", "-o", "csv", "--no-headers"); code != 0 || out != "default,"+srv.URL+","+srv.ClientID+",environment,none cached\n" {
		t.Fatalf("status -o csv: exit %d, %q%s", code, out, errOut)
	}
	if code, _, errOut := e.run("", "auth", "status", "--json", "-o", "yaml"); code != cmdutil.ExitUsage || !strings.Contains(errOut, "give one") {
		t.Fatalf("status --json -o yaml: exit %d, %s", code, errOut)
	}
}
