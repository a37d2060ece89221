package auth_test

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/wbsctl/wbsctl/internal/cmd/root"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/credentials"
	"github.com/wbsctl/wbsctl/internal/iostreams"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// Without a D-Bus session, login names the cause and the two ways out
// (--insecure-storage, or the environment) once each: the keyring's
// error carries the same advice, which login leaves out of its message.
func TestLoginWithoutDBusGivesTheAdviceOnce(t *testing.T) {
	srv := wbstest.Start(t)
	stores := map[string]credentials.Store{
		// A keyring that fails as the OS keyring does without a session.
		"a store that fails so": &fakeKeyring{t: t, m: map[string]string{}, unavailable: credentials.ErrKeyringUnavailable},
	}
	if runtime.GOOS == "linux" {
		// The OS keyring itself, with no DBUS_SESSION_BUS_ADDRESS: it
		// answers without calling D-Bus.
		stores["the OS keyring"] = credentials.Keyring{Timeout: time.Second, Getenv: func(string) string { return "" }}
	}
	for name, store := range stores {
		e := newEnv(t)
		io, in, _, errOut := iostreams.Test()
		in.WriteString(srv.ClientSecret + "\n")
		f := cmdutil.New(io)
		f.Getenv = func(k string) string { return e.vars[k] }
		f.Keyring = store
		code := root.Run(context.Background(), f, []string{"auth", "login", "--base-url", srv.URL, "--client-id", srv.ClientID, "--with-secret-stdin"})
		msg := errOut.String()
		if code != cmdutil.ExitError {
			t.Errorf("%s: exit %d, want %d: %s", name, code, cmdutil.ExitError, msg)
		}
		for _, once := range []string{"no D-Bus session", "--insecure-storage", "WBSCTL_CLIENT_SECRET", "nothing was saved"} {
			if n := strings.Count(msg, once); n != 1 {
				t.Errorf("%s: %q %d times, want once:\n%s", name, once, n, msg)
			}
		}
	}
}
