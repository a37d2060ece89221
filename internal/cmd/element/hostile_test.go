package element_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/wbsctl/wbsctl/internal/cmd/cmdtest"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// brokenLists is a reference server whose list answers are replaced by
// page; tokens are exchanged as usual.
func brokenLists(t *testing.T, page http.HandlerFunc) *wbstest.Server {
	return cmdtest.Behind(t, wbstest.New(), func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodGet || r.URL.Path != "/v1/wbs-elements" {
			return false
		}
		page(w, r)
		return true
	})
}

// The CLI ends with a clear error and a failing exit code, within its
// request timeout, whatever a broken server answers to a list.
func TestBrokenListAnswers(t *testing.T) {
	tests := []struct {
		name string
		page http.HandlerFunc
		args []string
		code int
		want string
	}{
		{"HTML with 200", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html><body>Sign in to the proxy</body></html>")
		}, nil, cmdutil.ExitError, "text/html"},
		{"HTML with 502", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusBadGateway)
			fmt.Fprint(w, "<html><body>Bad gateway</body></html>")
		}, nil, cmdutil.ExitError, "502"},
		{"empty body", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
		}, nil, cmdutil.ExitError, "the body is empty"},
		{"truncated JSON", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"data":[{"wbsElementCode":"A","isAct`)
		}, nil, cmdutil.ExitError, "cut short"},
		{"never-ending answer", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"data":[`)
			for {
				select {
				case <-r.Context().Done():
					return
				case <-time.After(5 * time.Millisecond):
					fmt.Fprint(w, " ")
					w.(http.Flusher).Flush()
				}
			}
		}, []string{"--request-timeout", "200ms"}, cmdutil.ExitError, "no complete answer within 200ms"},
		{"enormous hits, no items", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `{"data":[],"hits":9223372036854775807,"next":null}`)
		}, []string{"--all"}, cmdutil.ExitOK, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := brokenLists(t, tt.page)
			done := make(chan struct{})
			var r result
			go func() {
				defer close(done)
				r = run(t, srv, false, "", append([]string{"element", "list"}, tt.args...)...)
			}()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("wbsctl element list hung")
			}
			if r.Code != tt.code || !strings.Contains(r.ErrOut, tt.want) {
				t.Fatalf("exit %d, want %d; stderr %q, want it to name %q", r.Code, tt.code, r.ErrOut, tt.want)
			}
		})
	}
}

func TestRequestTimeoutMustBePositive(t *testing.T) {
	srv := wbstest.Start(t)
	if r := run(t, srv, false, "", "element", "list", "--request-timeout", "-1s"); r.Code != cmdutil.ExitUsage {
		t.Fatalf("exit %d: %s", r.Code, r.ErrOut)
	}
}
