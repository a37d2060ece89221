// Package cmdtest runs wbsctl in-process for the commands' tests: against
// a reference server, with credentials in the environment as a CI job
// would have them, and buffers for the streams.
package cmdtest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wbsctl/wbsctl/internal/cmd/root"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/iostreams"
	"github.com/wbsctl/wbsctl/sdk"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// Result is what a run printed and its exit code.
type Result struct {
	Code        int
	Out, ErrOut string
}

// Run runs wbsctl with args against srv. TTY makes stdout and stderr
// terminals; Env adds to or overrides the environment.
type Run struct {
	TTY bool
	// NoColor is the NO_COLOR of the streams.
	NoColor bool
	Stdin   string
	Env     map[string]string
	// ClientOptions are added to the client's options after the fast
	// retry policy.
	ClientOptions []sdk.Option
	// Transport, where set, is what the run's clients send through,
	// such as one shared by many runs.
	Transport http.RoundTripper
	// Ctx is the context of the run; cancelling it is the second signal
	// of a command that handles signals. Default context.Background().
	Ctx context.Context
}

// Do runs args and fails the test if the client secret was printed.
func (r Run) Do(t *testing.T, srv *wbstest.Server, args ...string) Result {
	t.Helper()
	io, in, out, errOut := iostreams.Test()
	in.WriteString(r.Stdin)
	io.StdoutTTY, io.StderrTTY, io.NoColor = r.TTY, r.TTY, r.NoColor
	f := cmdutil.New(io)
	env := map[string]string{"WBSCTL_BASE_URL": srv.URL, "WBSCTL_CLIENT_ID": srv.ClientID, "WBSCTL_CLIENT_SECRET": srv.ClientSecret,
		"XDG_CONFIG_HOME": t.TempDir(), "XDG_CACHE_HOME": t.TempDir()}
	for k, v := range r.Env {
		env[k] = v
	}
	// As iostreams.System decides it, for output to a pipe.
	io.ActionsLog = env["GITHUB_ACTIONS"] == "true"
	f.Getenv = func(k string) string { return env[k] }
	f.ClientOptions = []sdk.Option{sdk.WithRetryPolicy(sdk.RetryPolicy{BaseDelay: time.Millisecond, MaxDelay: time.Millisecond, MaxRetryAfter: time.Millisecond})}
	f.ClientOptions = append(f.ClientOptions, r.ClientOptions...)
	f.Transport = r.Transport
	ctx := r.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	res := Result{root.Run(ctx, f, args), out.String(), errOut.String()}
	if strings.Contains(res.Out+res.ErrOut, srv.ClientSecret) {
		t.Fatalf("the secret was printed: %+v", res)
	}
	return res
}

// Behind starts srv, which must not be listening yet, behind front: a
// hostile or broken platform in front of the reference server. front
// answers a request itself by returning true; the others reach srv.
// srv.URL becomes the front's.
func Behind(t *testing.T, srv *wbstest.Server, front func(w http.ResponseWriter, r *http.Request) bool) *wbstest.Server {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !front(w, r) {
			srv.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(ts.Close)
	srv.URL = ts.URL
	return srv
}

// WriteFile writes content to the file name in dir, mode 0600, and
// returns its path.
func WriteFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
